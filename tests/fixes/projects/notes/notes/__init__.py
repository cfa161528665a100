"""Notes tools dispatched by dispatchguard's own dispatcher (registered in its TOOL_REGISTRY)."""
