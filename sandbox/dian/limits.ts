/** The stand-in's message cap: DIAN's, and what it answers past it. */

/** DIAN's message cap ([D] Web.config maxReceivedMessageSize), also the cap of a next-response body. */
export const MAX_MESSAGE_BYTES = 10_485_760;

/** WCF's answer past maxReceivedMessageSize: 413, before anything is read further. */
export function tooLarge(): Response {
  return new Response(`The message is larger than ${MAX_MESSAGE_BYTES} bytes.`, { status: 413 });
}
