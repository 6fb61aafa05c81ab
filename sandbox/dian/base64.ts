/** Base64 as WCF reads a `byte[]` parameter: whitespace ignored, anything else not base64 refused. */

/** The bytes of `text`, or null when it is not base64. */
export function fromBase64(text: string): Uint8Array | null {
  const compact = text.replace(/\s+/g, "");
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return null;
  const binary = atob(compact);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
