"""The terminal commands (``python -m app docs|ask|chat|serve|models|check-vault``,
``--self-test``), over core/ and inference/, without Qt."""
