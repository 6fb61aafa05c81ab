// The tables, views and functions of the schema `public`, as supabase-js sees them. Generated
// from the migrations by `npm run db:types` (Supabase's generator, as `supabase gen types
// typescript`): do not edit. A test fails when it is stale.

export type Json =
  | string
  | number
  | boolean
  | null
  | { [key: string]: Json | undefined }
  | Json[]

export type Database = {
  // Allows to automatically instantiate createClient with right options
  // instead of createClient<Database, { PostgrestVersion: 'XX' }>(URL, KEY)
  __InternalSupabase: {
    PostgrestVersion: "14"
  }
  public: {
    Tables: {
      companies: {
        Row: {
          active_environment: string
          address: string
          check_digit: string
          city_code: string
          city_name: string
          country_code: string
          created_at: string
          credit_note_prefix: string
          debit_note_prefix: string
          department_code: string
          department_name: string
          email: string | null
          fiscal_responsibilities: string[]
          id: string
          invoice_prefix: string
          legal_name: string
          nit: string
          org_id: string
          person_type: string
          phone: string | null
          postal_zone: string | null
          resolution_date: string | null
          resolution_from: number | null
          resolution_number: string | null
          resolution_to: number | null
          resolution_valid_until: string | null
          software_pin: string | null
          tax_regime: string
          tax_scheme: string
          technical_key: string | null
          trade_name: string | null
          updated_at: string
        }
        Insert: {
          active_environment?: string
          address: string
          check_digit: string
          city_code: string
          city_name: string
          country_code?: string
          created_at?: string
          credit_note_prefix?: string
          debit_note_prefix?: string
          department_code: string
          department_name: string
          email?: string | null
          fiscal_responsibilities?: string[]
          id?: string
          invoice_prefix?: string
          legal_name: string
          nit: string
          org_id: string
          person_type?: string
          phone?: string | null
          postal_zone?: string | null
          resolution_date?: string | null
          resolution_from?: number | null
          resolution_number?: string | null
          resolution_to?: number | null
          resolution_valid_until?: string | null
          software_pin?: string | null
          tax_regime?: string
          tax_scheme?: string
          technical_key?: string | null
          trade_name?: string | null
          updated_at?: string
        }
        Update: {
          active_environment?: string
          address?: string
          check_digit?: string
          city_code?: string
          city_name?: string
          country_code?: string
          created_at?: string
          credit_note_prefix?: string
          debit_note_prefix?: string
          department_code?: string
          department_name?: string
          email?: string | null
          fiscal_responsibilities?: string[]
          id?: string
          invoice_prefix?: string
          legal_name?: string
          nit?: string
          org_id?: string
          person_type?: string
          phone?: string | null
          postal_zone?: string | null
          resolution_date?: string | null
          resolution_from?: number | null
          resolution_number?: string | null
          resolution_to?: number | null
          resolution_valid_until?: string | null
          software_pin?: string | null
          tax_regime?: string
          tax_scheme?: string
          technical_key?: string | null
          trade_name?: string | null
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "companies_org_id_fkey"
            columns: ["org_id"]
            referencedRelation: "organizations"
            referencedColumns: ["id"]
          },
        ]
      }
      credit_note_lines: {
        Row: {
          allowance_charge_amounts: NonNullable<Json>
          code: string | null
          credit_note_id: string
          credited_quantity: number
          currency_amounts: Json | null
          description: string
          id: string
          invoice_line_id: string
          line_extension: number
          org_id: string
          position: number
          quantity: number
          released_at: string | null
          tax_amount: number
          tax_subtotals: NonNullable<Json>
          unit_code: string
          unit_price: number
        }
        Insert: {
          allowance_charge_amounts?: NonNullable<Json>
          code?: string | null
          credit_note_id: string
          credited_quantity: number
          currency_amounts?: Json | null
          description: string
          id?: string
          invoice_line_id: string
          line_extension: number
          org_id: string
          position: number
          quantity: number
          released_at?: string | null
          tax_amount: number
          tax_subtotals?: NonNullable<Json>
          unit_code: string
          unit_price: number
        }
        Update: {
          allowance_charge_amounts?: NonNullable<Json>
          code?: string | null
          credit_note_id?: string
          credited_quantity?: number
          currency_amounts?: Json | null
          description?: string
          id?: string
          invoice_line_id?: string
          line_extension?: number
          org_id?: string
          position?: number
          quantity?: number
          released_at?: string | null
          tax_amount?: number
          tax_subtotals?: NonNullable<Json>
          unit_code?: string
          unit_price?: number
        }
        Relationships: [
          {
            foreignKeyName: "credit_note_lines_credit_note_id_org_id_fkey"
            columns: ["credit_note_id", "org_id"]
            referencedRelation: "credit_notes"
            referencedColumns: ["id", "org_id"]
          },
          {
            foreignKeyName: "credit_note_lines_invoice_line_id_fkey"
            columns: ["invoice_line_id"]
            referencedRelation: "invoice_lines"
            referencedColumns: ["id"]
          },
        ]
      }
      credit_notes: {
        Row: {
          allowance_charge_amounts: NonNullable<Json>
          allowance_total_amount: number
          attempt_count: number
          authority_code: string | null
          authority_message: string | null
          authority_rules: Json | null
          charge_total_amount: number
          claimed_at: string | null
          company_id: string
          concept_code: string
          created_at: string
          created_by: string | null
          currency: string
          currency_totals: Json | null
          environment: string | null
          exchange_rate: number | null
          exchange_rate_date: string | null
          id: string
          invoice_id: string
          issue_date: string
          issue_time: string
          issuer_snapshot: Json | null
          last_code: string | null
          last_message: string | null
          lease_until: string | null
          number: string
          org_id: string
          provider_reference: string | null
          qr_text: string | null
          reason: string
          refused_attempt: number | null
          status: string
          status_checked_at: string | null
          submitted_attempt: number | null
          subtotal: number
          tax_exclusive_amount: number
          tax_inclusive_amount: number
          tax_total: number
          tax_totals: NonNullable<Json>
          total: number
          transmitted_at: string | null
          updated_at: string
        }
        Insert: {
          allowance_charge_amounts?: NonNullable<Json>
          allowance_total_amount?: number
          attempt_count?: number
          authority_code?: string | null
          authority_message?: string | null
          authority_rules?: Json | null
          charge_total_amount?: number
          claimed_at?: string | null
          company_id: string
          concept_code: string
          created_at?: string
          created_by?: string | null
          currency: string
          currency_totals?: Json | null
          environment?: string | null
          exchange_rate?: number | null
          exchange_rate_date?: string | null
          id?: string
          invoice_id: string
          issue_date: string
          issue_time: string
          issuer_snapshot?: Json | null
          last_code?: string | null
          last_message?: string | null
          lease_until?: string | null
          number: string
          org_id: string
          provider_reference?: string | null
          qr_text?: string | null
          reason: string
          refused_attempt?: number | null
          status?: string
          status_checked_at?: string | null
          submitted_attempt?: number | null
          subtotal: number
          tax_exclusive_amount?: number
          tax_inclusive_amount?: number
          tax_total: number
          tax_totals?: NonNullable<Json>
          total: number
          transmitted_at?: string | null
          updated_at?: string
        }
        Update: {
          allowance_charge_amounts?: NonNullable<Json>
          allowance_total_amount?: number
          attempt_count?: number
          authority_code?: string | null
          authority_message?: string | null
          authority_rules?: Json | null
          charge_total_amount?: number
          claimed_at?: string | null
          company_id?: string
          concept_code?: string
          created_at?: string
          created_by?: string | null
          currency?: string
          currency_totals?: Json | null
          environment?: string | null
          exchange_rate?: number | null
          exchange_rate_date?: string | null
          id?: string
          invoice_id?: string
          issue_date?: string
          issue_time?: string
          issuer_snapshot?: Json | null
          last_code?: string | null
          last_message?: string | null
          lease_until?: string | null
          number?: string
          org_id?: string
          provider_reference?: string | null
          qr_text?: string | null
          reason?: string
          refused_attempt?: number | null
          status?: string
          status_checked_at?: string | null
          submitted_attempt?: number | null
          subtotal?: number
          tax_exclusive_amount?: number
          tax_inclusive_amount?: number
          tax_total?: number
          tax_totals?: NonNullable<Json>
          total?: number
          transmitted_at?: string | null
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "credit_notes_company_id_org_id_fkey"
            columns: ["company_id", "org_id"]
            referencedRelation: "companies"
            referencedColumns: ["id", "org_id"]
          },
          {
            foreignKeyName: "credit_notes_invoice_id_org_id_fkey"
            columns: ["invoice_id", "org_id"]
            referencedRelation: "invoices"
            referencedColumns: ["id", "org_id"]
          },
          {
            foreignKeyName: "credit_notes_org_id_fkey"
            columns: ["org_id"]
            referencedRelation: "organizations"
            referencedColumns: ["id"]
          },
        ]
      }
      debit_note_lines: {
        Row: {
          allowance_charge_amounts: NonNullable<Json>
          allowance_charges: NonNullable<Json>
          code: string | null
          currency_amounts: Json | null
          debit_note_id: string
          description: string
          id: string
          line_extension: number
          org_id: string
          position: number
          price_amount: number
          quantity: number
          tax_amount: number
          tax_subtotals: NonNullable<Json>
          taxes: NonNullable<Json>
          unit_code: string
          unit_price: number
        }
        Insert: {
          allowance_charge_amounts?: NonNullable<Json>
          allowance_charges?: NonNullable<Json>
          code?: string | null
          currency_amounts?: Json | null
          debit_note_id: string
          description: string
          id?: string
          line_extension: number
          org_id: string
          position: number
          price_amount: number
          quantity: number
          tax_amount: number
          tax_subtotals?: NonNullable<Json>
          taxes?: NonNullable<Json>
          unit_code: string
          unit_price: number
        }
        Update: {
          allowance_charge_amounts?: NonNullable<Json>
          allowance_charges?: NonNullable<Json>
          code?: string | null
          currency_amounts?: Json | null
          debit_note_id?: string
          description?: string
          id?: string
          line_extension?: number
          org_id?: string
          position?: number
          price_amount?: number
          quantity?: number
          tax_amount?: number
          tax_subtotals?: NonNullable<Json>
          taxes?: NonNullable<Json>
          unit_code?: string
          unit_price?: number
        }
        Relationships: [
          {
            foreignKeyName: "debit_note_lines_debit_note_id_org_id_fkey"
            columns: ["debit_note_id", "org_id"]
            referencedRelation: "debit_notes"
            referencedColumns: ["id", "org_id"]
          },
        ]
      }
      debit_notes: {
        Row: {
          allowance_charge_amounts: NonNullable<Json>
          allowance_total_amount: number
          attempt_count: number
          authority_code: string | null
          authority_message: string | null
          authority_rules: Json | null
          charge_total_amount: number
          claimed_at: string | null
          company_id: string
          concept_code: string
          created_at: string
          created_by: string | null
          currency: string
          currency_totals: Json | null
          environment: string | null
          exchange_rate: number | null
          exchange_rate_date: string | null
          id: string
          invoice_id: string
          issue_date: string
          issue_time: string
          issuer_snapshot: Json | null
          last_code: string | null
          last_message: string | null
          lease_until: string | null
          number: string
          org_id: string
          provider_reference: string | null
          qr_text: string | null
          reason: string
          refused_attempt: number | null
          status: string
          status_checked_at: string | null
          submitted_attempt: number | null
          subtotal: number
          tax_exclusive_amount: number
          tax_inclusive_amount: number
          tax_total: number
          tax_totals: NonNullable<Json>
          total: number
          transmitted_at: string | null
          updated_at: string
        }
        Insert: {
          allowance_charge_amounts?: NonNullable<Json>
          allowance_total_amount?: number
          attempt_count?: number
          authority_code?: string | null
          authority_message?: string | null
          authority_rules?: Json | null
          charge_total_amount?: number
          claimed_at?: string | null
          company_id: string
          concept_code: string
          created_at?: string
          created_by?: string | null
          currency: string
          currency_totals?: Json | null
          environment?: string | null
          exchange_rate?: number | null
          exchange_rate_date?: string | null
          id?: string
          invoice_id: string
          issue_date: string
          issue_time: string
          issuer_snapshot?: Json | null
          last_code?: string | null
          last_message?: string | null
          lease_until?: string | null
          number: string
          org_id: string
          provider_reference?: string | null
          qr_text?: string | null
          reason: string
          refused_attempt?: number | null
          status?: string
          status_checked_at?: string | null
          submitted_attempt?: number | null
          subtotal: number
          tax_exclusive_amount?: number
          tax_inclusive_amount?: number
          tax_total: number
          tax_totals?: NonNullable<Json>
          total: number
          transmitted_at?: string | null
          updated_at?: string
        }
        Update: {
          allowance_charge_amounts?: NonNullable<Json>
          allowance_total_amount?: number
          attempt_count?: number
          authority_code?: string | null
          authority_message?: string | null
          authority_rules?: Json | null
          charge_total_amount?: number
          claimed_at?: string | null
          company_id?: string
          concept_code?: string
          created_at?: string
          created_by?: string | null
          currency?: string
          currency_totals?: Json | null
          environment?: string | null
          exchange_rate?: number | null
          exchange_rate_date?: string | null
          id?: string
          invoice_id?: string
          issue_date?: string
          issue_time?: string
          issuer_snapshot?: Json | null
          last_code?: string | null
          last_message?: string | null
          lease_until?: string | null
          number?: string
          org_id?: string
          provider_reference?: string | null
          qr_text?: string | null
          reason?: string
          refused_attempt?: number | null
          status?: string
          status_checked_at?: string | null
          submitted_attempt?: number | null
          subtotal?: number
          tax_exclusive_amount?: number
          tax_inclusive_amount?: number
          tax_total?: number
          tax_totals?: NonNullable<Json>
          total?: number
          transmitted_at?: string | null
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "debit_notes_company_id_org_id_fkey"
            columns: ["company_id", "org_id"]
            referencedRelation: "companies"
            referencedColumns: ["id", "org_id"]
          },
          {
            foreignKeyName: "debit_notes_invoice_id_org_id_fkey"
            columns: ["invoice_id", "org_id"]
            referencedRelation: "invoices"
            referencedColumns: ["id", "org_id"]
          },
          {
            foreignKeyName: "debit_notes_org_id_fkey"
            columns: ["org_id"]
            referencedRelation: "organizations"
            referencedColumns: ["id"]
          },
        ]
      }
      deliveries: {
        Row: {
          attachments: Json | null
          attempt: number
          code: string | null
          company_id: string
          created_at: string
          created_by: string | null
          document_id: string
          document_type: string
          gave_up_reason: string | null
          id: string
          issuer_nit: string
          lease_until: string | null
          message: string | null
          next_retry_at: string | null
          org_id: string
          package_number: number
          package_year: number
          provider_reference: string | null
          recipient: string
          retried_by: string | null
          retry_of: string | null
          send_id: string | null
          status: string
          updated_at: string
        }
        Insert: {
          attachments?: Json | null
          attempt?: number
          code?: never
          company_id: string
          created_at?: string
          created_by?: string | null
          document_id: string
          document_type: string
          gave_up_reason?: string | null
          id?: string
          issuer_nit: string
          lease_until?: string | null
          message?: string | null
          next_retry_at?: string | null
          org_id: string
          package_number: number
          package_year: number
          provider_reference?: string | null
          recipient: string
          retried_by?: string | null
          retry_of?: string | null
          send_id?: string | null
          status?: string
          updated_at?: string
        }
        Update: {
          attachments?: Json | null
          attempt?: number
          code?: never
          company_id?: string
          created_at?: string
          created_by?: string | null
          document_id?: string
          document_type?: string
          gave_up_reason?: string | null
          id?: string
          issuer_nit?: string
          lease_until?: string | null
          message?: string | null
          next_retry_at?: string | null
          org_id?: string
          package_number?: number
          package_year?: number
          provider_reference?: string | null
          recipient?: string
          retried_by?: string | null
          retry_of?: string | null
          send_id?: string | null
          status?: string
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "deliveries_company_id_fkey"
            columns: ["company_id"]
            referencedRelation: "companies"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "deliveries_org_id_fkey"
            columns: ["org_id"]
            referencedRelation: "organizations"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "deliveries_retry_of_fkey"
            columns: ["retry_of"]
            referencedRelation: "deliveries"
            referencedColumns: ["id"]
          },
        ]
      }
      events: {
        Row: {
          actor_id: string | null
          created_at: string
          data: NonNullable<Json>
          document_id: string
          document_type: string
          id: number
          kind: string
          org_id: string
        }
        Insert: {
          actor_id?: string | null
          created_at?: string
          data?: NonNullable<Json>
          document_id: string
          document_type: string
          id?: never
          kind: string
          org_id: string
        }
        Update: {
          actor_id?: string | null
          created_at?: string
          data?: NonNullable<Json>
          document_id?: string
          document_type?: string
          id?: never
          kind?: string
          org_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "events_org_id_fkey"
            columns: ["org_id"]
            referencedRelation: "organizations"
            referencedColumns: ["id"]
          },
        ]
      }
      invoice_lines: {
        Row: {
          allowance_charge_amounts: NonNullable<Json>
          allowance_charges: NonNullable<Json>
          code: string | null
          created_at: string
          currency_amounts: Json | null
          description: string
          id: string
          invoice_id: string
          line_extension: number
          org_id: string
          position: number
          price_amount: number
          quantity: number
          tax_amount: number
          tax_subtotals: NonNullable<Json>
          taxes: NonNullable<Json>
          unit_code: string
          unit_price: number
        }
        Insert: {
          allowance_charge_amounts?: NonNullable<Json>
          allowance_charges?: NonNullable<Json>
          code?: string | null
          created_at?: string
          currency_amounts?: Json | null
          description: string
          id?: string
          invoice_id: string
          line_extension?: number
          org_id: string
          position: number
          price_amount?: number
          quantity: number
          tax_amount?: number
          tax_subtotals?: NonNullable<Json>
          taxes?: NonNullable<Json>
          unit_code?: string
          unit_price: number
        }
        Update: {
          allowance_charge_amounts?: NonNullable<Json>
          allowance_charges?: NonNullable<Json>
          code?: string | null
          created_at?: string
          currency_amounts?: Json | null
          description?: string
          id?: string
          invoice_id?: string
          line_extension?: number
          org_id?: string
          position?: number
          price_amount?: number
          quantity?: number
          tax_amount?: number
          tax_subtotals?: NonNullable<Json>
          taxes?: NonNullable<Json>
          unit_code?: string
          unit_price?: number
        }
        Relationships: [
          {
            foreignKeyName: "invoice_lines_invoice_id_org_id_fkey"
            columns: ["invoice_id", "org_id"]
            referencedRelation: "invoices"
            referencedColumns: ["id", "org_id"]
          },
        ]
      }
      invoices: {
        Row: {
          allowance_charge_amounts: NonNullable<Json>
          allowance_charges: NonNullable<Json>
          allowance_total_amount: number
          attempt_count: number
          authority_code: string | null
          authority_message: string | null
          authority_rules: Json | null
          buyer_address: string | null
          buyer_check_digit: string | null
          buyer_city_code: string | null
          buyer_city_name: string | null
          buyer_country_code: string
          buyer_department_code: string | null
          buyer_department_name: string | null
          buyer_email: string | null
          buyer_fiscal_responsibilities: string[]
          buyer_id_number: string | null
          buyer_id_type: string
          buyer_name: string | null
          buyer_person_type: string | null
          buyer_phone: string | null
          buyer_postal_zone: string | null
          buyer_tax_scheme: string
          charge_total_amount: number
          claimed_at: string | null
          company_id: string
          created_at: string
          currency: string
          currency_totals: Json | null
          due_date: string | null
          environment: string | null
          exchange_rate: number | null
          exchange_rate_date: string | null
          id: string
          issue_date: string
          issue_time: string
          issuer_snapshot: Json | null
          last_code: string | null
          last_message: string | null
          lease_until: string | null
          net_payable_amount: number
          notes: string | null
          number: string
          org_id: string
          payment_form: string
          payment_method: string
          prepaid_amount: number
          prepayment_amounts: NonNullable<Json>
          prepayments: NonNullable<Json>
          problems: string[]
          provider_reference: string | null
          qr_text: string | null
          refused_attempt: number | null
          status: string
          status_checked_at: string | null
          submitted_attempt: number | null
          subtotal: number
          tax_exclusive_amount: number
          tax_inclusive_amount: number
          tax_total: number
          tax_totals: NonNullable<Json>
          test_set_id: string | null
          total: number
          transmitted_at: string | null
          updated_at: string
          withholding_total_amount: number
          withholding_totals: NonNullable<Json>
          withholdings: NonNullable<Json>
        }
        Insert: {
          allowance_charge_amounts?: NonNullable<Json>
          allowance_charges?: NonNullable<Json>
          allowance_total_amount?: number
          attempt_count?: number
          authority_code?: string | null
          authority_message?: string | null
          authority_rules?: Json | null
          buyer_address?: string | null
          buyer_check_digit?: string | null
          buyer_city_code?: string | null
          buyer_city_name?: string | null
          buyer_country_code?: string
          buyer_department_code?: string | null
          buyer_department_name?: string | null
          buyer_email?: string | null
          buyer_fiscal_responsibilities?: string[]
          buyer_id_number?: string | null
          buyer_id_type?: string
          buyer_name?: string | null
          buyer_person_type?: string | null
          buyer_phone?: string | null
          buyer_postal_zone?: string | null
          buyer_tax_scheme?: string
          charge_total_amount?: number
          claimed_at?: string | null
          company_id: string
          created_at?: string
          currency?: string
          currency_totals?: Json | null
          due_date?: string | null
          environment?: string | null
          exchange_rate?: number | null
          exchange_rate_date?: string | null
          id?: string
          issue_date?: string
          issue_time?: string
          issuer_snapshot?: Json | null
          last_code?: string | null
          last_message?: string | null
          lease_until?: string | null
          net_payable_amount?: number
          notes?: string | null
          number: string
          org_id: string
          payment_form?: string
          payment_method?: string
          prepaid_amount?: number
          prepayment_amounts?: NonNullable<Json>
          prepayments?: NonNullable<Json>
          problems?: string[]
          provider_reference?: string | null
          qr_text?: string | null
          refused_attempt?: number | null
          status?: string
          status_checked_at?: string | null
          submitted_attempt?: number | null
          subtotal?: number
          tax_exclusive_amount?: number
          tax_inclusive_amount?: number
          tax_total?: number
          tax_totals?: NonNullable<Json>
          test_set_id?: string | null
          total?: number
          transmitted_at?: string | null
          updated_at?: string
          withholding_total_amount?: number
          withholding_totals?: NonNullable<Json>
          withholdings?: NonNullable<Json>
        }
        Update: {
          allowance_charge_amounts?: NonNullable<Json>
          allowance_charges?: NonNullable<Json>
          allowance_total_amount?: number
          attempt_count?: number
          authority_code?: string | null
          authority_message?: string | null
          authority_rules?: Json | null
          buyer_address?: string | null
          buyer_check_digit?: string | null
          buyer_city_code?: string | null
          buyer_city_name?: string | null
          buyer_country_code?: string
          buyer_department_code?: string | null
          buyer_department_name?: string | null
          buyer_email?: string | null
          buyer_fiscal_responsibilities?: string[]
          buyer_id_number?: string | null
          buyer_id_type?: string
          buyer_name?: string | null
          buyer_person_type?: string | null
          buyer_phone?: string | null
          buyer_postal_zone?: string | null
          buyer_tax_scheme?: string
          charge_total_amount?: number
          claimed_at?: string | null
          company_id?: string
          created_at?: string
          currency?: string
          currency_totals?: Json | null
          due_date?: string | null
          environment?: string | null
          exchange_rate?: number | null
          exchange_rate_date?: string | null
          id?: string
          issue_date?: string
          issue_time?: string
          issuer_snapshot?: Json | null
          last_code?: string | null
          last_message?: string | null
          lease_until?: string | null
          net_payable_amount?: number
          notes?: string | null
          number?: string
          org_id?: string
          payment_form?: string
          payment_method?: string
          prepaid_amount?: number
          prepayment_amounts?: NonNullable<Json>
          prepayments?: NonNullable<Json>
          problems?: string[]
          provider_reference?: string | null
          qr_text?: string | null
          refused_attempt?: number | null
          status?: string
          status_checked_at?: string | null
          submitted_attempt?: number | null
          subtotal?: number
          tax_exclusive_amount?: number
          tax_inclusive_amount?: number
          tax_total?: number
          tax_totals?: NonNullable<Json>
          test_set_id?: string | null
          total?: number
          transmitted_at?: string | null
          updated_at?: string
          withholding_total_amount?: number
          withholding_totals?: NonNullable<Json>
          withholdings?: NonNullable<Json>
        }
        Relationships: [
          {
            foreignKeyName: "invoices_company_id_org_id_fkey"
            columns: ["company_id", "org_id"]
            referencedRelation: "companies"
            referencedColumns: ["id", "org_id"]
          },
          {
            foreignKeyName: "invoices_org_id_fkey"
            columns: ["org_id"]
            referencedRelation: "organizations"
            referencedColumns: ["id"]
          },
        ]
      }
      memberships: {
        Row: {
          created_at: string
          org_id: string
          role: string
          user_id: string
        }
        Insert: {
          created_at?: string
          org_id: string
          role: string
          user_id: string
        }
        Update: {
          created_at?: string
          org_id?: string
          role?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "memberships_org_id_fkey"
            columns: ["org_id"]
            referencedRelation: "organizations"
            referencedColumns: ["id"]
          },
        ]
      }
      organizations: {
        Row: {
          created_at: string
          id: string
          name: string
        }
        Insert: {
          created_at?: string
          id?: string
          name: string
        }
        Update: {
          created_at?: string
          id?: string
          name?: string
        }
        Relationships: []
      }
      representations: {
        Row: {
          document_id: string
          document_type: string
          filename: string
          fingerprint: string
          generated_at: string
          id: string
          org_id: string
          path: string
          renderer: string
          stamped: boolean
          xml_path: string | null
        }
        Insert: {
          document_id: string
          document_type: string
          filename: string
          fingerprint: string
          generated_at: string
          id?: string
          org_id: string
          path: string
          renderer: string
          stamped: boolean
          xml_path?: string | null
        }
        Update: {
          document_id?: string
          document_type?: string
          filename?: string
          fingerprint?: string
          generated_at?: string
          id?: string
          org_id?: string
          path?: string
          renderer?: string
          stamped?: boolean
          xml_path?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "representations_org_id_fkey"
            columns: ["org_id"]
            referencedRelation: "organizations"
            referencedColumns: ["id"]
          },
        ]
      }
      webhook_endpoints: {
        Row: {
          created_at: string
          created_by: string | null
          disabled_at: string | null
          disabled_reason: string | null
          enabled: boolean
          events: string[] | null
          id: string
          org_id: string
          previous_secret_ciphertext: string | null
          previous_secret_key_id: string | null
          previous_secret_until: string | null
          secret_ciphertext: string
          secret_key_id: string
          updated_at: string
          url: string
        }
        Insert: {
          created_at?: string
          created_by?: string | null
          disabled_at?: string | null
          disabled_reason?: string | null
          enabled?: boolean
          events?: string[] | null
          id?: string
          org_id: string
          previous_secret_ciphertext?: string | null
          previous_secret_key_id?: string | null
          previous_secret_until?: string | null
          secret_ciphertext: string
          secret_key_id: string
          updated_at?: string
          url: string
        }
        Update: {
          created_at?: string
          created_by?: string | null
          disabled_at?: string | null
          disabled_reason?: string | null
          enabled?: boolean
          events?: string[] | null
          id?: string
          org_id?: string
          previous_secret_ciphertext?: string | null
          previous_secret_key_id?: string | null
          previous_secret_until?: string | null
          secret_ciphertext?: string
          secret_key_id?: string
          updated_at?: string
          url?: string
        }
        Relationships: [
          {
            foreignKeyName: "webhook_endpoints_org_id_fkey"
            columns: ["org_id"]
            referencedRelation: "organizations"
            referencedColumns: ["id"]
          },
        ]
      }
    }
    Views: {
      [_ in never]: never
    }
    Functions: {
      einv_caller_membership: { Args: { p_org_id: string }; Returns: Json }
      einv_credential_get: {
        Args: {
          p_company_id: string
          p_environment: string
          p_org_id: string
          p_service: string
        }
        Returns: Json
      }
      einv_credential_list: {
        Args: { p_after: string; p_limit: number }
        Returns: Json
      }
      einv_credential_reseal: {
        Args: {
          p_api_key_ciphertext: string
          p_expected_ciphertext: string
          p_id: string
          p_key_id: string
        }
        Returns: boolean
      }
      einv_credit_note_create: {
        Args: {
          p_actor_id: string
          p_concept_code: string
          p_invoice_id: string
          p_issued_at: string
          p_lease_seconds: number
          p_lines: Json
          p_org_id: string
          p_reason: string
        }
        Returns: Json
      }
      einv_debit_note_create: {
        Args: {
          p_actor_id: string
          p_concept_code: string
          p_invoice_id: string
          p_issued_at: string
          p_lease_seconds: number
          p_lines: Json
          p_org_id: string
          p_reason: string
        }
        Returns: Json
      }
      einv_delivery_attachments: {
        Args: { p_attachments: Json; p_delivery_id: string; p_org_id: string }
        Returns: Json
      }
      einv_delivery_begin: {
        Args: {
          p_actor_id: string
          p_document_id: string
          p_kind: string
          p_lease_seconds: number
          p_limits: Json
          p_org_id: string
          p_recipient: string
          p_retry_of: string
          p_send_id: string
        }
        Returns: Json
      }
      einv_delivery_record: {
        Args: {
          p_delivery_id: string
          p_message: string
          p_org_id: string
          p_provider_reference: string
          p_status: string
        }
        Returns: Json
      }
      einv_delivery_retry_later: {
        Args: { p_delivery_id: string; p_org_id: string; p_send_id: string }
        Returns: Json
      }
      einv_document_claim: {
        Args: {
          p_actor_id: string
          p_document_ids: Json
          p_issued_at: string
          p_kind: string
          p_lease_seconds: number
          p_org_id: string
          p_reissue: boolean
        }
        Returns: Json
      }
      einv_document_claim_sending: {
        Args: {
          p_actor_id: string
          p_document_ids: Json
          p_issued_at: string
          p_kind: string
          p_lease_seconds: number
          p_org_id: string
          p_reissue: boolean
          p_service: string
        }
        Returns: Json
      }
      einv_document_claim_sending_authorized: {
        Args: {
          p_actor_id: string
          p_document_ids: Json
          p_issued_at: string
          p_kind: string
          p_lease_seconds: number
          p_org_id: string
          p_reissue: boolean
          p_roles: Json
          p_service: string
          p_user_id: string
        }
        Returns: Json
      }
      einv_document_get: {
        Args: { p_document_id: string; p_kind: string; p_org_id: string }
        Returns: Json
      }
      einv_document_get_with_credentials: {
        Args: {
          p_document_id: string
          p_kind: string
          p_org_id: string
          p_service: string
        }
        Returns: Json
      }
      einv_document_get_with_credentials_authorized: {
        Args: {
          p_document_id: string
          p_kind: string
          p_org_id: string
          p_roles: Json
          p_service: string
          p_user_id: string
        }
        Returns: Json
      }
      einv_document_record: {
        Args: {
          p_attempt: number
          p_document_id: string
          p_kind: string
          p_org_id: string
          p_outcome: Json
        }
        Returns: Json
      }
      einv_document_refresh_record: {
        Args: {
          p_document_id: string
          p_expected_attempt: number
          p_expected_status: string
          p_kind: string
          p_org_id: string
          p_outcome: Json
        }
        Returns: Json
      }
      einv_document_representation_read: {
        Args: {
          p_document_id: string
          p_fingerprint: string
          p_inputs: string
          p_kind: string
          p_org_id: string
        }
        Returns: Json
      }
      einv_document_representation_read_authorized: {
        Args: {
          p_document_id: string
          p_fingerprint: string
          p_inputs: string
          p_kind: string
          p_org_id: string
          p_roles: Json
          p_user_id: string
        }
        Returns: Json
      }
      einv_events_prune: {
        Args: { p_keep_days: number; p_limit: number }
        Returns: Json
      }
      einv_idempotency_begin: {
        Args: {
          p_key: string
          p_org_id: string
          p_request_hash: string
          p_route: string
        }
        Returns: Json
      }
      einv_idempotency_finish: {
        Args: {
          p_claim_id: string
          p_key: string
          p_org_id: string
          p_response: Json
          p_route: string
          p_status: number
        }
        Returns: Json
      }
      einv_integration_event: {
        Args: {
          p_actor_id: string
          p_api_key_hint: string
          p_company_id: string
          p_environment: string
          p_event: string
          p_key_source: string
          p_message: string
          p_org_id: string
          p_outcome: string
          p_service: string
          p_url: string
        }
        Returns: undefined
      }
      einv_integration_get: {
        Args: {
          p_company_id: string
          p_environment: string
          p_org_id: string
          p_service: string
        }
        Returns: Json
      }
      einv_integration_issuer: {
        Args: { p_company_id: string; p_org_id: string }
        Returns: Json
      }
      einv_integration_save: {
        Args: {
          p_actor_id: string
          p_api_key_ciphertext: string
          p_api_key_hint: string
          p_company_id: string
          p_environment: string
          p_key_id: string
          p_key_source: string
          p_message: string
          p_org_id: string
          p_service: string
          p_settings: Json
          p_url: string
        }
        Returns: Json
      }
      einv_reconcile_begin: { Args: Record<PropertyKey, never>; Returns: Json }
      einv_reconcile_finish: {
        Args: {
          p_deliveries_retried: number
          p_errors: Json
          p_run_id: string
          p_settled: number
          p_took_ms: number
        }
        Returns: Json
      }
      einv_reconcile_pick: {
        Args: {
          p_grace_seconds: number
          p_lease_seconds: number
          p_limit: number
          p_run_id: string
        }
        Returns: Json
      }
      einv_reconcile_pick_deliveries: {
        Args: { p_limit: number; p_run_id: string }
        Returns: Json
      }
      einv_reconcile_pick_open_deliveries: {
        Args: {
          p_grace_seconds: number
          p_lease_seconds: number
          p_limit: number
          p_run_id: string
        }
        Returns: Json
      }
      einv_reconcile_record: {
        Args: {
          p_document_id: string
          p_kind: string
          p_org_id: string
          p_outcome: Json
          p_run_id: string
        }
        Returns: Json
      }
      einv_reconcile_release: {
        Args: {
          p_document_id: string
          p_kind: string
          p_org_id: string
          p_run_id: string
        }
        Returns: Json
      }
      einv_representation_attach_xml: {
        Args: {
          p_document_id: string
          p_fingerprint: string
          p_kind: string
          p_org_id: string
          p_xml_path: string
        }
        Returns: Json
      }
      einv_representation_save: {
        Args: {
          p_document_id: string
          p_filename: string
          p_fingerprint: string
          p_kind: string
          p_org_id: string
          p_path: string
          p_renderer: string
          p_stamped: boolean
          p_xml_path: string
        }
        Returns: Json
      }
      einv_test_set_invoices: {
        Args: {
          p_company_id: string
          p_count: number
          p_org_id: string
          p_test_set_id: string
        }
        Returns: Json
      }
      einv_test_set_lease: {
        Args: {
          p_caps?: Json
          p_company_id: string
          p_org_id: string
          p_seconds: number
          p_token: string
        }
        Returns: boolean
      }
      einv_test_set_progress: {
        Args: { p_company_id: string; p_org_id: string }
        Returns: Json
      }
      einv_webhook_get: {
        Args: { p_org_id: string; p_webhook_id: string }
        Returns: Json
      }
      einv_webhook_pick: {
        Args: { p_lease_seconds: number; p_limit: number; p_org_id: string }
        Returns: Json
      }
      einv_webhook_record: {
        Args: { p_attempt: number; p_delivery_id: number; p_outcome: Json }
        Returns: Json
      }
      einv_webhook_save: {
        Args: {
          p_actor_id: string
          p_create: boolean
          p_enabled: boolean
          p_events: Json
          p_events_given: boolean
          p_max_endpoints: number
          p_org_id: string
          p_secret_ciphertext: string
          p_secret_key_id: string
          p_url: string
          p_webhook_id: string
        }
        Returns: Json
      }
      einv_webhook_secret_list: {
        Args: { p_after: string; p_limit: number }
        Returns: Json
      }
      einv_webhook_secret_reseal: {
        Args: {
          p_ciphertext: string
          p_expected_ciphertext: string
          p_id: string
          p_key_id: string
          p_previous: boolean
        }
        Returns: boolean
      }
    }
    Enums: {
      [_ in never]: never
    }
    CompositeTypes: {
      [_ in never]: never
    }
  }
}

type DatabaseWithoutInternals = Omit<Database, "__InternalSupabase">

type DefaultSchema = DatabaseWithoutInternals[Extract<keyof Database, "public">]

export type Tables<
  DefaultSchemaTableNameOrOptions extends
    | keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
        DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
      DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])[TableName] extends {
      Row: infer R
    }
    ? R
    : never
  : DefaultSchemaTableNameOrOptions extends keyof (DefaultSchema["Tables"] &
        DefaultSchema["Views"])
    ? (DefaultSchema["Tables"] &
        DefaultSchema["Views"])[DefaultSchemaTableNameOrOptions] extends {
        Row: infer R
      }
      ? R
      : never
    : never

export type TablesInsert<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Insert: infer I
    }
    ? I
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
        Insert: infer I
      }
      ? I
      : never
    : never

export type TablesUpdate<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Update: infer U
    }
    ? U
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
        Update: infer U
      }
      ? U
      : never
    : never

export type Enums<
  DefaultSchemaEnumNameOrOptions extends
    | keyof DefaultSchema["Enums"]
    | { schema: keyof DatabaseWithoutInternals },
  EnumName extends (DefaultSchemaEnumNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"]
    : never) = never,
> = DefaultSchemaEnumNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"][EnumName]
  : DefaultSchemaEnumNameOrOptions extends keyof DefaultSchema["Enums"]
    ? DefaultSchema["Enums"][DefaultSchemaEnumNameOrOptions]
    : never

export type CompositeTypes<
  PublicCompositeTypeNameOrOptions extends
    | keyof DefaultSchema["CompositeTypes"]
    | { schema: keyof DatabaseWithoutInternals },
  CompositeTypeName extends (PublicCompositeTypeNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"]
    : never) = never,
> = PublicCompositeTypeNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"][CompositeTypeName]
  : PublicCompositeTypeNameOrOptions extends keyof DefaultSchema["CompositeTypes"]
    ? DefaultSchema["CompositeTypes"][PublicCompositeTypeNameOrOptions]
    : never

export const Constants = {
  public: {
    Enums: {},
  },
} as const
