"""The LLM judge: settings from ragguard.yml, prompts, an on-disk cache and the HTTP client."""
