"""Chatting in the window: the controller over core.turns, the conversation view, the input."""
