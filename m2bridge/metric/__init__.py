"""Critical points of squared distances on neuromanifolds: the loss of training (MATH.md section 10)."""
