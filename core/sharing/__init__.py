"""A repository's shared facts file: read safely, trusted by the user, written on request."""
