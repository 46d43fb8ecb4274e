"""Inference for Hearth: the llama.cpp engine, the worker thread and its protocol. No Qt here."""
