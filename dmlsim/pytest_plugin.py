"""pytest plugin of dmlsim (descriptor-file collection is added later)."""
