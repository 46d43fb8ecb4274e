from tests.storage.conftest import store, vault_path  # noqa: F401 - the same vault fixtures
