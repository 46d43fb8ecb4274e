"""Persistence for Hearth: locations, the database and its repositories. No Qt here."""
