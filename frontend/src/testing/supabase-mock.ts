import { createFakeSupabase } from './fake-supabase'

/**
 * What tests put in place of '@/lib/supabase':
 *
 *   import { fake } from '@/testing/supabase-mock'
 *   vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))
 *
 * The app's modules then get `supabase` below, and the test programs and
 * inspects it through `fake` (the same instance).
 */
export const fake = createFakeSupabase()
export const supabase = fake.client
