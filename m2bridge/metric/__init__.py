"""Critical points of squared distances on neuromanifolds: the loss of training (documentation: Mathematics, section 10)."""
