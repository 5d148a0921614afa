// StoreSimulator
