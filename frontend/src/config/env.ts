/**
 * The anon key of a Supabase CLI local stack (`supabase start`). It carries
 * only the `anon` role and is public by design; production builds pass their
 * own key through VITE_SUPABASE_ANON_KEY.
 */
export const LOCAL_ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0'

/** Runtime configuration, read once from Vite's build-time environment. */
export type Env = {
  /** Base URL of the gateway that serves /auth/v1, /rest/v1, /storage/v1 ... */
  supabaseUrl: string
  /** The public anon API key sent as `apikey`. */
  supabaseAnonKey: string
  /**
   * The single administrator's e-mail (spec §6: the admin is identified by a
   * fixed e-mail compared on the client, plus the admin role). Defaults to
   * the demo data's admin account.
   */
  adminEmail: string
}

/** The administrator account of the demo data (sql/seed). */
export const DEFAULT_ADMIN_EMAIL = 'admin@kejanest.test'

function blankToUndefined(value: string | undefined): string | undefined {
  const trimmed = value?.trim()
  return trimmed ? trimmed : undefined
}

/**
 * Builds the configuration. The gateway serves this app at the same origin
 * as the API, so the URL defaults to the page's own origin.
 */
export function readEnv(
  source: ImportMetaEnv = import.meta.env,
  origin: string = window.location.origin,
): Env {
  return {
    supabaseUrl: blankToUndefined(source.VITE_SUPABASE_URL) ?? origin,
    supabaseAnonKey: blankToUndefined(source.VITE_SUPABASE_ANON_KEY) ?? LOCAL_ANON_KEY,
    adminEmail: blankToUndefined(source.VITE_ADMIN_EMAIL) ?? DEFAULT_ADMIN_EMAIL,
  }
}

export const env: Env = readEnv()
