import HummingbirdTesting
enum Placeholder {}
