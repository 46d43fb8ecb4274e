"""The vault in the window: create, unlock, lock, auto-lock, backup, restore, export, check."""
