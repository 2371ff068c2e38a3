"""The bot tests use the root conftest's personas (owner, stranger, servers): tests/conftest.py."""
