/**
 * Types of our Postgres schema, as `supabase gen types typescript` writes
 * them. Placeholder until the first migrations land in sql/: regenerate this
 * file from the real schema then, and do not edit it by hand.
 */
export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[]

export type Database = {
  public: {
    Tables: Record<never, never>
    Views: Record<never, never>
    Functions: Record<never, never>
    Enums: Record<never, never>
    CompositeTypes: Record<never, never>
  }
}
