/**
 * The better-auth endpoints the app exposes under /api/auth. Everything else (the organization plugin's
 * create/update/invite endpoints, password resets, account linking…) would skip the app's own rules (slug
 * format and reserved names, owner rules, audit) and answers 404: the app does those through its services.
 */
const AUTH_ROUTES: Record<string, readonly string[]> = {
  '/api/auth/sign-in/email': ['POST'],
  '/api/auth/sign-up/email': ['POST'],
  '/api/auth/sign-out': ['POST'],
  '/api/auth/get-session': ['GET'],
  // The link in the verification mail.
  '/api/auth/verify-email': ['GET'],
};

export const isAllowedAuthRoute = (method: string, pathname: string): boolean =>
  AUTH_ROUTES[pathname.replace(/\/+$/, '')]?.includes(method) ?? false;
