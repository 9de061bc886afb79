"""The test set: its model and loader, shards, imports and other tools' formats."""
