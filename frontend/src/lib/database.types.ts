/**
 * Types of our Postgres schema (public), written by hand from
 * sql/migrations 0007-0012, 0017 and 0019-0020 in the shape
 * `supabase gen types typescript` produces. The P2P schema (0011, 0020,
 * 0026) is typed for the exchange screens. Keep it in step with the
 * migrations.
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
      /** P2P offers (0011, 0020): everyone signed in reads active ones, owners read and delete theirs. */
      p2p_offers: {
        Row: {
          id: string
          user_id: string
          action: 'buy' | 'sell'
          currency: 'nestcoins' | 'crystals' | 'keys'
          amount: number
          rate_per_unit: number
          min_limit: number
          max_limit: number
          payment_methods: string[]
          auto_cancel_duration: string
          expires_at: string
          status: 'active' | 'paused' | 'filled' | 'cancelled' | 'expired'
          filled_amount: number
          remaining_amount: number
          created_at: string
          updated_at: string
        }
        Insert: {
          user_id?: string
          action: 'buy' | 'sell'
          currency: 'nestcoins' | 'crystals' | 'keys'
          amount: number
          rate_per_unit: number
          min_limit: number
          max_limit: number
          payment_methods: string[]
          auto_cancel_duration?: string
          expires_at?: string
        }
        Update: {
          rate_per_unit?: number
          min_limit?: number
          max_limit?: number
          payment_methods?: string[]
        }
        Relationships: []
      }
      /** P2P trades (0011, 0020): their buyer and seller (and admins) read them; changed only by the trade functions. */
      p2p_trades: {
        Row: {
          id: string
          offer_id: string | null
          offer_action: 'buy' | 'sell'
          taker_id: string
          seller_id: string
          buyer_id: string
          currency: 'nestcoins' | 'crystals' | 'keys'
          amount: number
          rate_per_unit: number
          total_kes: number
          status: 'escrow_locked' | 'paid' | 'completed' | 'cancelled' | 'expired' | 'disputed' | 'resolved'
          payment_deadline: string
          payment_reference: string | null
          release_deadline: string | null
          created_at: string
          updated_at: string
          paid_at: string | null
          closed_at: string | null
          // The dispute and its outcome (0011, 0020) and the trade dialog's choices (0026).
          dispute_reason: string | null
          disputed_by: string | null
          resolution: 'buyer' | 'seller' | null
          resolution_notes: string | null
          admin_flag: 'auto_dispute' | 'party_suspended' | null
          payment_method: string | null
          payment_instructions: string | null
        }
        Insert: { [_ in never]: never }
        Update: { [_ in never]: never }
        Relationships: []
      }
      /** A trade's status changes (0011), written by trigger; parties and admins read them. */
      p2p_trade_events: {
        Row: {
          id: number
          trade_id: string
          from_status: string | null
          to_status: string
          actor_id: string | null
          actor_role: string | null
          created_at: string
        }
        Insert: { [_ in never]: never }
        Update: { [_ in never]: never }
        Relationships: []
      }
      /** A trade's chat (0011): its parties (and admins) read and write; never edited. */
      p2p_trade_messages: {
        Row: { id: string; trade_id: string; sender_id: string; body: string; created_at: string }
        Insert: { trade_id: string; sender_id?: string; body: string }
        Update: { [_ in never]: never }
        Relationships: []
      }
      /** Ratings of the other party after a completed trade (0026): once per party; every signed-in user reads. */
      p2p_trade_ratings: {
        Row: {
          id: string
          trade_id: string
          rater_id: string
          ratee_id: string
          stars: number
          comment: string | null
          created_at: string
        }
        Insert: { trade_id: string; rater_id?: string; stars: number; comment?: string | null }
        Update: { [_ in never]: never }
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
      /**
       * Nestcoin purchases (0009, M-Pesa columns 0025): the buyer reads their
       * own rows (live through Realtime); only the database functions and the
       * payments service write them.
       */
      nestcoin_purchases: {
        Row: {
          id: string
          user_id: string
          package_id: string
          coins: number
          amount_kes: number
          phone: string | null
          status: 'pending' | 'paid' | 'failed'
          checkout_request_id: string | null
          merchant_request_id: string | null
          payment_reference: string | null
          transfer_id: number | null
          failure_reason: string | null
          failure_code:
            | 'cancelled'
            | 'timeout'
            | 'insufficient_funds'
            | 'wrong_pin'
            | 'busy'
            | 'declined'
            | 'push_failed'
            | 'expired'
            | 'amount_mismatch'
            | null
          resolved_via: 'callback' | 'query' | 'push' | 'expiry' | null
          result_code: number | null
          result_desc: string | null
          stk_sent_at: string | null
          paid_at: string | null
          failed_at: string | null
          created_at: string
          updated_at: string
        }
        Insert: { [_ in never]: never }
        Update: { [_ in never]: never }
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
      /** A user's saved (hearted) listings (0024): owners read, insert and delete their own rows. */
      saved_listings: {
        Row: {
          user_id: string
          listing_kind: 'property' | 'product' | 'land' | 'service'
          listing_id: string
          created_at: string
        }
        Insert: {
          user_id?: string
          listing_kind: 'property' | 'product' | 'land' | 'service'
          listing_id: string
          created_at?: string
        }
        Update: { [_ in never]: never }
        Relationships: []
      }
      /** The contact form's messages (0024): anyone inserts name, email and message only; admins read. */
      contact_messages: {
        Row: {
          id: number
          user_id: string | null
          name: string
          email: string
          message: string
          client_ip: string | null
          status: 'new' | 'handled'
          created_at: string
        }
        Insert: {
          name: string
          email: string
          message: string
        }
        Update: {
          status?: 'new' | 'handled'
        }
        Relationships: []
      }
      /** A conversation about one listing between its owner and one buyer (0024); parties read, start_conversation() creates. */
      conversations: {
        Row: {
          id: string
          listing_kind: 'property' | 'product' | 'land' | 'service'
          listing_id: string
          listing_title: string | null
          owner_id: string
          buyer_id: string
          owner_read_at: string | null
          buyer_read_at: string | null
          last_message_at: string
          created_at: string
        }
        Insert: { [_ in never]: never }
        Update: { [_ in never]: never }
        Relationships: []
      }
      /** Messages of a conversation (0024): its two parties insert (conversation_id, body) and read; never edited. */
      messages: {
        Row: {
          id: string
          conversation_id: string
          sender_id: string
          body: string
          created_at: string
        }
        Insert: {
          conversation_id: string
          sender_id?: string
          body: string
        }
        Update: { [_ in never]: never }
        Relationships: []
      }
      /** What happened that concerns a user (0024): kind + data, worded by the app; the owner reads, sets read_at, deletes. */
      notifications: {
        Row: {
          id: number
          user_id: string
          kind: 'listing_approved' | 'listing_rejected' | 'listing_expiring' | 'kyc_approved' | 'kyc_rejected' | 'trade' | 'message'
          data: Json
          link: string | null
          dedupe_key: string | null
          read_at: string | null
          created_at: string
        }
        Insert: { [_ in never]: never }
        Update: {
          read_at?: string | null
        }
        Relationships: []
      }
      /** A user's report of a conversation or listing to the admins (0024); one open report per reporter and target (23505). */
      reports: {
        Row: {
          id: number
          reporter_id: string
          target_kind: 'conversation' | 'property' | 'product' | 'land' | 'service'
          target_id: string
          reason: string
          status: 'open' | 'resolved' | 'dismissed'
          admin_notes: string | null
          resolved_by: string | null
          resolved_at: string | null
          created_at: string
        }
        Insert: {
          reporter_id?: string
          target_kind: 'conversation' | 'property' | 'product' | 'land' | 'service'
          target_id: string
          reason: string
        }
        Update: {
          status?: 'open' | 'resolved' | 'dismissed'
          admin_notes?: string | null
          resolved_by?: string | null
          resolved_at?: string | null
        }
        Relationships: []
      }
      /** Append-only record of admin actions (0028); admins read, triggers write. */
      admin_audit: {
        Row: {
          id: number
          actor_id: string | null
          action: string
          target_kind: string | null
          target_id: string | null
          subject_user_id: string | null
          reason: string | null
          details: Json
          created_at: string
        }
        Insert: { [_ in never]: never }
        Update: { [_ in never]: never }
        Relationships: []
      }
    }
    Views: {
      /** The caller's conversations (0024): listing, my_role, the other party, the last message and unread_count. */
      conversation_list: {
        Row: {
          id: string
          listing_kind: 'property' | 'product' | 'land' | 'service'
          listing_id: string
          listing_title: string | null
          my_role: 'owner' | 'buyer'
          other_party_id: string | null
          other_party_name: string
          last_message: string | null
          last_sender_id: string | null
          last_message_at: string
          created_at: string
          unread_count: number
        }
        Relationships: []
      }
      /** Ledger postings per user wallet (0024), signed (+ in, - out); users see their own rows, admins everyone's. */
      wallet_history: {
        Row: {
          id: number
          user_id: string
          currency: 'nestcoins' | 'crystals' | 'keys'
          kind: 'issuance' | 'purchase' | 'listing_fee' | 'listing_refund' | 'escrow_lock' | 'escrow_release' | 'escrow_refund'
          amount: number
          reference: string | null
          memo: string | null
          trade_id: string | null
          created_at: string
        }
        Relationships: []
      }
      /** A trader's P2P record (0026): completed trades, completion rate (0-1), average rating. */
      p2p_trader_stats: {
        Row: {
          user_id: string
          completed_trades: number
          completion_rate: number | null
          rating_avg: number | null
          rating_count: number
        }
        Relationships: []
      }
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
      /** One page of the P2P board with each owner's name, KYC badge and record (0026). */
      get_p2p_board: {
        Args: {
          p_action?: 'buy' | 'sell' | null
          p_currency?: 'nestcoins' | 'crystals' | 'keys' | null
          p_search?: string | null
          p_sort?: 'newest' | 'rate_asc' | 'rate_desc'
          p_limit?: number
          p_offset?: number
        }
        Returns: {
          id: string
          user_id: string
          action: 'buy' | 'sell'
          currency: 'nestcoins' | 'crystals' | 'keys'
          amount: number
          filled_amount: number
          remaining_amount: number
          rate_per_unit: number
          min_limit: number
          max_limit: number
          payment_methods: string[]
          auto_cancel_duration: string
          expires_at: string
          created_at: string
          owner_name: string
          owner_kyc_verified: boolean
          owner_completed_trades: number
          owner_completion_rate: number | null
          owner_rating_avg: number | null
          owner_rating_count: number
        }[]
      }
      /** The trade dialog: locks the seller's coins in escrow at the rate the taker saw (0026 over 0020). */
      open_p2p_trade: {
        Args: {
          p_offer_id: string
          p_amount: number
          p_expected_rate: number
          p_payment_method: string
          p_payment_instructions?: string | null
          p_idempotency_key?: string | null
        }
        Returns: Database['public']['Tables']['p2p_trades']['Row']
      }
      lock_currency_in_escrow: {
        Args: { p_offer_id: string; p_buyer_id: string; p_amount: number; p_expected_rate: number; p_idempotency_key?: string | null }
        Returns: Database['public']['Tables']['p2p_trades']['Row']
      }
      cancel_p2p_offer: { Args: { p_offer_id: string }; Returns: Database['public']['Tables']['p2p_offers']['Row'] }
      mark_trade_paid: { Args: { p_trade_id: string; p_payment_reference: string }; Returns: Database['public']['Tables']['p2p_trades']['Row'] }
      release_trade: { Args: { p_trade_id: string }; Returns: Database['public']['Tables']['p2p_trades']['Row'] }
      cancel_trade: { Args: { p_trade_id: string }; Returns: Database['public']['Tables']['p2p_trades']['Row'] }
      dispute_trade: { Args: { p_trade_id: string; p_reason?: string | null }; Returns: Database['public']['Tables']['p2p_trades']['Row'] }
      set_trade_payment_instructions: {
        Args: { p_trade_id: string; p_instructions: string }
        Returns: Database['public']['Tables']['p2p_trades']['Row']
      }
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
      /** Sends the caller's first (or next) message about a listing to its owner; returns the conversation id (0024). */
      start_conversation: { Args: { p_kind: string; p_listing_id: string; p_body: string }; Returns: string }
      /** Marks a conversation of the caller read up to now, and its message notification (0024). */
      mark_conversation_read: { Args: { p_conversation_id: string }; Returns: undefined }
      // The admin panel (0008, 0010, 0011, 0028).
      verify_admin_access: { Args: { p_code: string }; Returns: Json }
      get_user_email: { Args: { p_user_id: string }; Returns: string | null }
      get_user_suspension_info: { Args: { p_user_id: string }; Returns: Json }
      admin_session_verified: { Args: Record<PropertyKey, never>; Returns: boolean }
      admin_list_users: {
        Args: { p_search?: string | null; p_limit?: number; p_offset?: number }
        Returns: {
          id: string
          email: string
          full_name: string | null
          phone_number: string | null
          role: string
          created_at: string
          last_sign_in_at: string | null
          kyc_status: 'pending' | 'approved' | 'rejected' | null
          is_suspended: boolean
          suspension_type: string | null
          suspension_reason: string | null
          suspended_until: string | null
          total_count: number
        }[]
      }
      admin_analytics: { Args: { p_days?: number }; Returns: Json }
      admin_deactivate_listing: { Args: { p_kind: string; p_listing_id: string; p_reason?: string | null }; Returns: Json }
      admin_delete_user: { Args: { p_user_id: string; p_reason?: string | null }; Returns: Json }
      suspend_user: {
        Args: { p_user_id: string; p_admin_id: string; p_suspension_type: string; p_reason?: string | null }
        Returns: Json
      }
      unsuspend_user: { Args: { p_user_id: string; p_admin_id?: string | null }; Returns: Json }
      process_kyc_verification: {
        Args: { p_kyc_id: string; p_admin_id: string; p_action: string; p_notes?: string | null }
        Returns: Database['public']['Tables']['kyc_verifications']['Row']
      }
      moderate_listing: { Args: { p_kind: string; p_listing_id: string; p_action: string; p_notes?: string | null }; Returns: Json }
      verify_service_provider: {
        Args: { p_service_id: string; p_verified?: boolean }
        Returns: Database['public']['Tables']['service_providers']['Row']
      }
      resolve_trade_dispute: {
        Args: { p_trade_id: string; p_resolution: string; p_notes?: string | null }
        Returns: Database['public']['Tables']['p2p_trades']['Row']
      }
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
