"""Web plumbing: middleware, limits, templating, errors, connections, server setup."""
