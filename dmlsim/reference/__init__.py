"""float64 reference implementations, one small function per operator, one comment per spec line.

Tests and the reference device import these; the math is never copied anywhere else.
"""
