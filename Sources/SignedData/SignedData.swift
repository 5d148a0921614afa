// SignedData
