/**
 * A self-signed certificate for `provider.example.test` (and no other name) with its key: tests only,
 * for TLS to a provider that answers on loopback while the client checks the certificate against the
 * name. EC P-256, CA:FALSE, valid from 2020 to 2120 (`openssl ca -selfsign -startdate … -enddate …`).
 */
export const PROVIDER_TLS_NAME = "provider.example.test";

export const PROVIDER_TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBgjCCASigAwIBAgIBATAKBggqhkjOPQQDAjAgMR4wHAYDVQQDDBVwcm92aWRl
ci5leGFtcGxlLnRlc3QwIBcNMjAwMTAxMDAwMDAwWhgPMjEyMDAxMDEwMDAwMDBa
MCAxHjAcBgNVBAMMFXByb3ZpZGVyLmV4YW1wbGUudGVzdDBZMBMGByqGSM49AgEG
CCqGSM49AwEHA0IABNnZC2AwSnlycnPiycRidGhFkGgKEYtp5PGXGvdKJS/Nt1r+
hsWRVC0gSDHteXBF6Lorj4AzuxI3j42UWJqE+SSjUTBPMCAGA1UdEQQZMBeCFXBy
b3ZpZGVyLmV4YW1wbGUudGVzdDAMBgNVHRMBAf8EAjAAMB0GA1UdDgQWBBTVz8qZ
fmbLjhBG5obB0D5PJ1cp0zAKBggqhkjOPQQDAgNIADBFAiBu+ZjWvVtnNLvQpy+s
WTtplhqfOuVjqpysl1jPnBoJVwIhAP7TVaPbadbifGyipVVj0mn7MN4mzbZXK5Rd
/80rBBcH
-----END CERTIFICATE-----
`;

export const PROVIDER_TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg7bjIhUJwMCo3YCFp
MCk4QjAQDznqcklAwYUtVL7tW5qhRANCAATZ2QtgMEp5cnJz4snEYnRoRZBoChGL
aeTxlxr3SiUvzbda/obFkVQtIEgx7XlwRei6K4+AM7sSN4+NlFiahPkk
-----END PRIVATE KEY-----
`;
