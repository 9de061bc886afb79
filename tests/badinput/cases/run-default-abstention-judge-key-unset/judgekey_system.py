"""A system that leaves asked.txt behind once it is asked anything."""

from pathlib import Path


def answer(question: str) -> dict[str, object]:
    with Path("asked.txt").open("a", encoding="utf-8") as asked:
        asked.write(question + "\n")
    return {"answer": "Send the API key in the Authorization header.", "retrieved": ["auth"]}
