"""Imports nothing of Hearth's: the egress guard and process hardening, installed first
in the app and in every child process it starts."""
