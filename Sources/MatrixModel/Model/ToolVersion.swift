/// The version of StoreKit Matrix, recorded in every run manifest and archive.
public enum ToolVersion {
    public static let current = "0.1.0"
}
