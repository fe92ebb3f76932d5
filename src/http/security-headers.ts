/**
 * Headers every response carries. The policy lets the bundled API reference (Scalar) work: its
 * styles are injected at run time ('unsafe-inline' styles), its "try it" calls this origin, and
 * it may load icons as data: URLs. Scripts come only from this origin; nothing may frame the site.
 * `npm start` sets these (scripts/serve.mjs); vercel.json repeats them for Vercel, and a test
 * checks the two agree.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
};
