"""Hearth's Qt user interface and entry point. Only this package imports Qt."""
