"""The local API in the window: switching it on, its settings dialog."""
