/**
 * Types of our Postgres schema (public), written by hand from
 * sql/migrations 0007-0012, 0017 and 0019-0020 in the shape
 * `supabase gen types typescript` produces. The P2P tables and functions
 * (0011, 0020) are not typed here yet: the app does not read them. Keep it in
 * step with the migrations.
 *
 * Row types list every column; anon may not select properties.contact,
 * products.contact or service_providers.phone (0019), so visitors' reads
 * name their columns (lib/listing-columns.ts).
 */
export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[]

export type Database = {
  public: {
    Tables: {
      profiles: {
        Row: {
          id: string
          full_name: string | null
          phone_number: string | null
          created_at: string
          updated_at: string
        }
        Insert: {
          id: string
          full_name?: string | null
          phone_number?: string | null
          created_at?: string
          updated_at?: string
        }
        Update: {
          id?: string
          full_name?: string | null
          phone_number?: string | null
          created_at?: string
          updated_at?: string
        }
        Relationships: []
      }
      user_roles: {
        Row: {
          user_id: string
          role: string
          created_at: string
        }
        Insert: {
          user_id: string
          role?: string
          created_at?: string
        }
        Update: {
          user_id?: string
          role?: string
          created_at?: string
        }
        Relationships: []
      }
      user_verifications: {
        Row: {
          user_id: string
          email_verified: boolean
          phone_verified: boolean
          email_verification_code: string | null
          email_verification_expires_at: string | null
          email_verification_attempts: number
          phone_verification_code: string | null
          phone_verification_expires_at: string | null
          phone_verification_attempts: number
          updated_at: string
        }
        Insert: {
          user_id: string
          email_verified?: boolean
          phone_verified?: boolean
          email_verification_code?: string | null
          email_verification_expires_at?: string | null
          email_verification_attempts?: number
          phone_verification_code?: string | null
          phone_verification_expires_at?: string | null
          phone_verification_attempts?: number
          updated_at?: string
        }
        Update: {
          user_id?: string
          email_verified?: boolean
          phone_verified?: boolean
          email_verification_code?: string | null
          email_verification_expires_at?: string | null
          email_verification_attempts?: number
          phone_verification_code?: string | null
          phone_verification_expires_at?: string | null
          phone_verification_attempts?: number
          updated_at?: string
        }
        Relationships: []
      }
      kyc_verifications: {
        Row: {
          id: string
          user_id: string
          id_type: string
          id_number: string
          physical_address: string | null
          photo_url: string | null
          id_document_front_url: string | null
          id_document_back_url: string | null
          verification_status: string
          admin_notes: string | null
          reviewed_by: string | null
          reviewed_at: string | null
          created_at: string
          updated_at: string
        }
        Insert: {
          id?: string
          user_id?: string
          id_type: string
          id_number: string
          physical_address?: string | null
          photo_url?: string | null
          id_document_front_url?: string | null
          id_document_back_url?: string | null
          verification_status?: string
          admin_notes?: string | null
          reviewed_by?: string | null
          reviewed_at?: string | null
          created_at?: string
          updated_at?: string
        }
        Update: {
          id?: string
          user_id?: string
          id_type?: string
          id_number?: string
          physical_address?: string | null
          photo_url?: string | null
          id_document_front_url?: string | null
          id_document_back_url?: string | null
          verification_status?: string
          admin_notes?: string | null
          reviewed_by?: string | null
          reviewed_at?: string | null
          created_at?: string
          updated_at?: string
        }
        Relationships: []
      }
      wallets: {
        Row: {
          id: number
          user_id: string | null
          kind: string
          currency: string
          balance: number
          created_at: string
          updated_at: string
        }
        Insert: {
          id?: number
          user_id?: string | null
          kind?: string
          currency: string
          balance?: number
          created_at?: string
          updated_at?: string
        }
        Update: {
          id?: number
          user_id?: string | null
          kind?: string
          currency?: string
          balance?: number
          created_at?: string
          updated_at?: string
        }
        Relationships: []
      }
      nestcoin_packages: {
        Row: {
          id: string
          name: string
          coins: number
          price: number
          is_active: boolean
          sort_order: number
          created_at: string
        }
        Insert: {
          id?: string
          name: string
          coins: number
          price: number
          is_active?: boolean
          sort_order?: number
          created_at?: string
        }
        Update: {
          id?: string
          name?: string
          coins?: number
          price?: number
          is_active?: boolean
          sort_order?: number
          created_at?: string
        }
        Relationships: []
      }
      listing_fee_rates: {
        Row: {
          id: number
          category: string
          label: string
          match_value: string | null
          min_price: number | null
          max_price: number | null
          per_day: number
          sort_order: number
        }
        Insert: {
          id?: number
          category: string
          label: string
          match_value?: string | null
          min_price?: number | null
          max_price?: number | null
          per_day: number
          sort_order?: number
        }
        Update: {
          id?: number
          category?: string
          label?: string
          match_value?: string | null
          min_price?: number | null
          max_price?: number | null
          per_day?: number
          sort_order?: number
        }
        Relationships: []
      }
      properties: {
        Row: {
          id: string
          user_id: string
          title: string | null
          type: string
          purpose: string
          price: number
          price_unit: string
          location: string | null
          description: string | null
          deposit: number | null
          images: string[]
          contact: string | null
          created_at: string
          is_active: boolean
          payment_status: string
          paid_until: string | null
          pending_days: number
          pending_fee: number
          moderation_notes: string | null
          updated_at: string
        }
        Insert: {
          id?: string
          user_id?: string
          title?: string | null
          type?: string
          purpose?: string
          price: number
          price_unit?: string
          location?: string | null
          description?: string | null
          deposit?: number | null
          images?: string[]
          contact?: string | null
          created_at?: string
          is_active?: boolean
          payment_status?: string
          paid_until?: string | null
          pending_days?: number
          pending_fee?: number
          moderation_notes?: string | null
          updated_at?: string
        }
        Update: {
          id?: string
          user_id?: string
          title?: string | null
          type?: string
          purpose?: string
          price?: number
          price_unit?: string
          location?: string | null
          description?: string | null
          deposit?: number | null
          images?: string[]
          contact?: string | null
          created_at?: string
          is_active?: boolean
          payment_status?: string
          paid_until?: string | null
          pending_days?: number
          pending_fee?: number
          moderation_notes?: string | null
          updated_at?: string
        }
        Relationships: []
      }
      lands: {
        Row: {
          id: string
          userid: string
          title: string
          location: string
          description: string | null
          type: string
          purpose: string
          price: number
          size: number | null
          sizeUnit: string
          features: string[]
          images: string[]
          createdAt: string
          is_active: boolean
          payment_status: string
          paid_until: string | null
          pending_days: number
          pending_fee: number
          moderation_notes: string | null
          updated_at: string
        }
        Insert: {
          id?: string
          userid?: string
          title: string
          location: string
          description?: string | null
          type?: string
          purpose?: string
          price: number
          size?: number | null
          sizeUnit?: string
          features?: string[]
          images?: string[]
          createdAt?: string
          is_active?: boolean
          payment_status?: string
          paid_until?: string | null
          pending_days?: number
          pending_fee?: number
          moderation_notes?: string | null
          updated_at?: string
        }
        Update: {
          id?: string
          userid?: string
          title?: string
          location?: string
          description?: string | null
          type?: string
          purpose?: string
          price?: number
          size?: number | null
          sizeUnit?: string
          features?: string[]
          images?: string[]
          createdAt?: string
          is_active?: boolean
          payment_status?: string
          paid_until?: string | null
          pending_days?: number
          pending_fee?: number
          moderation_notes?: string | null
          updated_at?: string
        }
        Relationships: []
      }
      products: {
        Row: {
          id: string
          user_id: string
          name: string
          price: number
          status: string
          category: string
          description: string | null
          location: string | null
          images: string[]
          contact: string | null
          value_range: string
          created_at: string
          is_active: boolean
          payment_status: string
          paid_until: string | null
          pending_days: number
          pending_fee: number
          moderation_notes: string | null
          updated_at: string
        }
        Insert: {
          id?: string
          user_id?: string
          name: string
          price: number
          status?: string
          category?: string
          description?: string | null
          location?: string | null
          images?: string[]
          contact?: string | null
          value_range?: string
          created_at?: string
          is_active?: boolean
          payment_status?: string
          paid_until?: string | null
          pending_days?: number
          pending_fee?: number
          moderation_notes?: string | null
          updated_at?: string
        }
        Update: {
          id?: string
          user_id?: string
          name?: string
          price?: number
          status?: string
          category?: string
          description?: string | null
          location?: string | null
          images?: string[]
          contact?: string | null
          value_range?: string
          created_at?: string
          is_active?: boolean
          payment_status?: string
          paid_until?: string | null
          pending_days?: number
          pending_fee?: number
          moderation_notes?: string | null
          updated_at?: string
        }
        Relationships: []
      }
      service_providers: {
        Row: {
          id: string
          userid: string
          name: string
          category: string
          location: string | null
          description: string | null
          services: string[]
          pricing: Json
          reviews: Json
          rating: number | null
          verified: boolean
          phone: string | null
          profileimage: string | null
          created_at: string
          is_active: boolean
          payment_status: string
          paid_until: string | null
          pending_days: number
          pending_fee: number
          moderation_notes: string | null
          updated_at: string
        }
        Insert: {
          id?: string
          userid?: string
          name: string
          category: string
          location?: string | null
          description?: string | null
          services?: string[]
          pricing?: Json
          reviews?: Json
          rating?: number | null
          verified?: boolean
          phone?: string | null
          profileimage?: string | null
          created_at?: string
          is_active?: boolean
          payment_status?: string
          paid_until?: string | null
          pending_days?: number
          pending_fee?: number
          moderation_notes?: string | null
          updated_at?: string
        }
        Update: {
          id?: string
          userid?: string
          name?: string
          category?: string
          location?: string | null
          description?: string | null
          services?: string[]
          pricing?: Json
          reviews?: Json
          rating?: number | null
          verified?: boolean
          phone?: string | null
          profileimage?: string | null
          created_at?: string
          is_active?: boolean
          payment_status?: string
          paid_until?: string | null
          pending_days?: number
          pending_fee?: number
          moderation_notes?: string | null
          updated_at?: string
        }
        Relationships: []
      }
    }
    Views: {
      public_profiles: {
        Row: {
          id: string
          full_name: string | null
          kyc_verified: boolean | null
          created_at: string
        }
        Relationships: []
      }
    }
    Functions: {
      listing_fee_per_day: {
        Args: { p_kind: string; p_type: string; p_purpose?: string | null; p_price?: number | null }
        Returns: number | null
      }
      quote_listing_fee: {
        Args: { p_kind: string; p_listing_id: string; p_days?: number }
        Returns: Json
      }
      publish_listing: {
        Args: { p_kind: string; p_listing_id: string; p_days: number; p_idempotency_key?: string | null }
        Returns: Json
      }
      /** Returns {channel, destination, expires_at}; the code itself is sent, never returned (0019). */
      request_verification_code: { Args: { p_channel: string }; Returns: Json }
      normalize_phone_ke: { Args: { p_phone: string }; Returns: string }
      escalate_unreleased_trades: { Args: { p_now?: string }; Returns: number }
      verify_contact_code: { Args: { p_channel: string; p_code: string }; Returns: boolean }
      get_dashboard_stats: { Args: Record<PropertyKey, never>; Returns: Json }
      is_admin: { Args: Record<PropertyKey, never>; Returns: boolean }
      get_listing_owner: { Args: { p_kind: string; p_id: string }; Returns: Json }
    }
    Enums: { [_ in never]: never }
    CompositeTypes: { [_ in never]: never }
  }
}

type PublicSchema = Database['public']

/** A row of a public table, e.g. Tables<'properties'>. */
export type Tables<T extends keyof PublicSchema['Tables']> = PublicSchema['Tables'][T]['Row']
/** The insert shape of a public table. */
export type TablesInsert<T extends keyof PublicSchema['Tables']> = PublicSchema['Tables'][T]['Insert']
/** The update shape of a public table. */
export type TablesUpdate<T extends keyof PublicSchema['Tables']> = PublicSchema['Tables'][T]['Update']
