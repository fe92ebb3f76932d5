// negotiator's encoding negotiation, with the server's preference on ties (its third argument):
// the module is the one `Negotiator#encodings` calls, and @types/negotiator does not declare it.
declare module 'negotiator/lib/encoding.js' {
  export default function preferredEncodings(
    accept: string | undefined,
    provided: readonly string[],
    preferred?: readonly string[],
  ): string[];
}
