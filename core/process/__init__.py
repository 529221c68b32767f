"""Process plumbing for the resident processes: event loops, the allocator, the desktop check."""
