"""The Macaulay2 bridge: the persistent session, the serialization of values both ways, the shipped
AttentionGeometry package (installer and probe), the doctor and the IPython magics."""
