// Adapters
