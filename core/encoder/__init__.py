"""The local encoder: model provisioning, the offline pack, and sentence encoding."""
