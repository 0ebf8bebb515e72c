"""Subcommands of the ``dmlsim`` CLI, one module each (see dmlsim.cli)."""
