"""The model library in the window: import, check, switch, per-model settings."""
