-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- A current PDF known without reading the whole document.
--
-- /representation answers from the stored PDF when the fingerprint of what the PDF is drawn from
-- matches the stored one. Knowing that from the document itself means reading all of it (its JSON
-- built here, parsed, turned into the PDF model and hashed by the service) on every call; the
-- functions below let the service skip that while nothing the PDF is drawn from has changed.
--
-- `einv_private.document_inputs` names the state of everything a kind's PDF is drawn from:
--   - every row, by the transaction that wrote it (`xmin`): the document's row (its fiscal state
--     and frozen issuer included), its lines, its company, the invoice a credit note credits, and
--     the company's docsgen credentials (both environments, whichever the read picks). Any write to
--     one of them, an insert or a delete of a line, changes it. It names versions, not content: an
--     update that changes nothing changes it too, and the service then reads the whole document
--     and finds the same fingerprint;
--   - the definitions of the functions the whole read is made of (`pg_proc` rows: `create or
--     replace` writes a new one), so a database deploy that changes what the read answers is seen
--     at once; `representation_read_functions` lists them, and a test holds the list equal to what
--     they call;
--   - the server's start: a transaction id can be handed out again after a failover or a restore,
--     never within one server's life (short of 2^32 transactions; the service forgets after 10
--     minutes anyway).
-- It must be read in the calling statement's snapshot (STABLE, from a STABLE caller): the whole
-- read's lifecycle comes from `document_of`, which is VOLATILE and may see a later snapshot, so the
-- inputs are never newer than any part of the document they are remembered with. A test holds
-- both functions STABLE.
--
-- `einv_document_representation_read` takes what the service remembers from an earlier call — the
-- inputs it read and the fingerprint it computed from them — and answers only the stored PDF
-- (`{ inputs, representation }`) when both still hold: the inputs are the same and the stored PDF
-- has that fingerprint (and, once stamped, its AttachedDocument's path), read in one snapshot. Otherwise, or with nothing remembered, it answers the
-- whole document as `einv_document_get_with_credentials` does, with the current inputs
-- (`{ inputs, record, credentials }`). A kind with no branch here has no inputs (null): it is
-- always read whole, correct and as slow as before.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

-- The functions the read is made of, by name (in any schema; overloads included): everything
-- einv_document_representation_read calls, and what they call. SQL, so it is folded into the
-- statement that uses it.
create function einv_private.representation_read_functions() returns name[]
language sql immutable as $$
  select '{einv_document_representation_read, document_inputs, representation_read_functions,
           einv_document_get_with_credentials, einv_document_get, einv_credential_get, document_of,
           read_documents, document_payload, invoice_payload, credit_note_payload, debit_note_payload,
           note_of_invoice, issuer_of, kind_table, person_type}'::name[]
$$;

create function einv_private.document_inputs(p_org_id uuid, p_kind text, p_id uuid) returns text
language plpgsql stable set search_path = '' as $$
declare
  _company uuid;
  _rows text;
begin
  -- What the kind's payload function reads (lifecycle.sql, credit_notes.sql), row for row.
  case p_kind
    when 'invoice' then
      select d.company_id,
             concat_ws('/', d.xmin, c.xmin,
               (select string_agg(l.xmin::text, ',' order by l.position)
                  from public.invoice_lines l where l.invoice_id = d.id))
        into _company, _rows
        from public.invoices d
        join public.companies c on c.id = d.company_id
       where d.id = p_id and d.org_id = p_org_id;
    when 'credit_note' then
      select d.company_id,
             concat_ws('/', d.xmin, c.xmin, i.xmin,
               (select string_agg(l.xmin::text, ',' order by l.position)
                  from public.credit_note_lines l where l.credit_note_id = d.id))
        into _company, _rows
        from public.credit_notes d
        join public.companies c on c.id = d.company_id
        join public.invoices i on i.id = d.invoice_id
       where d.id = p_id and d.org_id = p_org_id;
    when 'debit_note' then
      select d.company_id,
             concat_ws('/', d.xmin, c.xmin, i.xmin,
               (select string_agg(l.xmin::text, ',' order by l.position)
                  from public.debit_note_lines l where l.debit_note_id = d.id))
        into _company, _rows
        from public.debit_notes d
        join public.companies c on c.id = d.company_id
        join public.invoices i on i.id = d.invoice_id
       where d.id = p_id and d.org_id = p_org_id;
    else
      return null;
  end case;
  if _rows is null then
    return null; -- not found: the whole read says so
  end if;
  return p_kind || ':' || md5(concat_ws('/', _rows,
    -- the renderer is chosen by the stored docsgen credential (einv_credential_get's rows)
    (select string_agg(cr.xmin::text, ',' order by cr.environment)
       from einv_private.credentials cr
      where cr.org_id = p_org_id and cr.company_id = _company and cr.service = 'docsgen'),
    (select string_agg(p.oid::text || '.' || p.xmin::text, ',' order by p.oid)
       from pg_catalog.pg_proc p where p.proname = any (einv_private.representation_read_functions())),
    pg_catalog.pg_postmaster_start_time()));
end
$$;

revoke all on function einv_private.representation_read_functions() from public;
revoke all on function einv_private.document_inputs(uuid, text, uuid) from public;

create function public.einv_document_representation_read(
  p_org_id uuid, p_kind text, p_document_id uuid, p_inputs text, p_fingerprint text
) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  _inputs text := einv_private.document_inputs(p_org_id, p_kind, p_document_id);
  _stored jsonb;
begin
  if _inputs is not null and _inputs = p_inputs then
    _stored := (select to_jsonb(r) - 'id' from public.representations r
                 where r.document_type = p_kind and r.document_id = p_document_id
                   and r.org_id = p_org_id and r.fingerprint = p_fingerprint
                   -- an accepted document's XML not obtained yet: read whole, so it is tried again
                   and (not r.stamped or r.xml_path is not null));
    if _stored is not null then
      return jsonb_build_object('inputs', _inputs, 'representation', _stored);
    end if;
  end if;
  return public.einv_document_get_with_credentials(p_org_id, p_kind, p_document_id, 'docsgen')
         || jsonb_build_object('inputs', _inputs);
end
$$;

create function public.einv_document_representation_read_authorized(
  p_user_id uuid, p_roles jsonb, p_org_id uuid, p_kind text, p_document_id uuid, p_inputs text,
  p_fingerprint text
) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  _membership jsonb := einv_private.membership_of(p_org_id, p_user_id);
begin
  if not einv_private.role_listed(_membership, p_roles) then
    return jsonb_build_object('membership', _membership);
  end if;
  return jsonb_build_object('membership', _membership, 'result',
    public.einv_document_representation_read(p_org_id, p_kind, p_document_id, p_inputs,
                                              p_fingerprint));
end
$$;

revoke all on function public.einv_document_representation_read(uuid, text, uuid, text, text),
  public.einv_document_representation_read_authorized(uuid, jsonb, uuid, text, uuid, text, text)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_document_representation_read(uuid, text, uuid, text, text),
  public.einv_document_representation_read_authorized(uuid, jsonb, uuid, text, uuid, text, text)
  to service_role;
