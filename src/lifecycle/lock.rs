//! lock (placeholder)
