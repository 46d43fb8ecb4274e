"""The window around the features: main window, start-up, menus, shared dialogs."""
