import { createClient } from '@supabase/supabase-js'

import { env } from '@/config/env'

import type { Database } from './database.types'

/**
 * The one supabase-js client. Only src/lib and features' api/ modules import
 * it; components reach data through hooks. It lives in its own chunk: the
 * app shell loads it in the background (see auth.tsx).
 */
export const supabase = createClient<Database>(env.supabaseUrl, env.supabaseAnonKey, {
  auth: {
    persistSession: true,
    autoRefreshToken: true,
    detectSessionInUrl: true,
  },
})
