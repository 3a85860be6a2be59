//! durable writes (placeholder)
