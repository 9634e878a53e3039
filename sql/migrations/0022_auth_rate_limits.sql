-- authsvc's rate limits, shared by every authsvc replica (issue 12, "Past one
-- machine"). They used to be counted in each process, so N replicas allowed N
-- times every limit: a guesser alternating replicas got twice the password
-- guesses, twice the SMS.
--
-- One row per bucket, keyed '<limit>:<digest of the subject>' (the limit's
-- name, such as otp, email_sent or password_sign_in, then a SHA-256 of the IP
-- address, email, phone or (account, source) pair: keys stay short whatever
-- a client sends, and no address is kept in clear). A bucket is a token
-- bucket of N events per window, GoTrue's conf/rate.go and the in-memory
-- limiter this replaces, arithmetic included: it starts full, refills N per
-- window continuously up to N, and an event takes a token while at least one
-- is left. A row whose expires_at has passed is the same as no row (the
-- bucket is full again and its failures are old): authsvc deletes such rows
-- every minute, from whichever replica gets there, so the table holds only
-- buckets in use.
--
-- The plain buckets take a token with one INSERT ... ON CONFLICT DO UPDATE
-- ... WHERE in authsvc (internal/store/ratelimits.go); the password sign-in
-- guard, which reads and writes two rows, is the two functions below (they
-- lock the account's row before the pair's, so that they cannot deadlock).
-- Either way a check is one statement and one round trip, and the row locks
-- it takes mean two replicas can never both take the last token. The clock is a
-- parameter (null: the database's), so tests move it instead of sleeping.
--
-- Each check commits with synchronous_commit off (set_config(..., true), so
-- for its own transaction only): it does not wait for its WAL to reach the
-- disk, which is most of a check's time on a busy disk. A crash of the
-- database can lose the last fraction of a second of counts (at most three
-- wal_writer_delay), never corrupt them; the row locks, and so the "never
-- both take the last token" above, are unaffected.

create table auth.rate_limits (
  key text primary key,
  tokens double precision not null,
  updated_at timestamptz not null,
  failures integer not null default 0 constraint rate_limits_failures_check check (failures >= 0),
  failed_at timestamptz,
  expires_at timestamptz not null
) with (fillfactor = 70); -- room on each page, so that the frequent updates stay HOT
comment on table auth.rate_limits is 'Auth: authsvc''s rate-limit buckets (GOTRUE_RATE_LIMIT_*), shared by every replica; one row per limit and IP, address or (account, source), deleted once expired.';
comment on column auth.rate_limits.key is '<limit>:<base64url SHA-256 of the subject>, e.g. otp:… for an IP, password_sign_in:… for an (account, source) pair.';
comment on column auth.rate_limits.tokens is 'Tokens left at updated_at; refills events per window up to events. The per-account sign-in cap may go down to minus one cap (its debt).';
comment on column auth.rate_limits.failures is 'Password sign-in pairs only: failures of this source at this account since it last paused for the account cap''s window.';
comment on column auth.rate_limits.failed_at is 'Password sign-in pairs only: the newest of those failures.';
comment on column auth.rate_limits.expires_at is 'From this moment the row is the same as no row; the sweep deletes it. No index: the sweep scans, and updates of an unindexed column stay HOT.';
alter table auth.rate_limits owner to supabase_auth_admin;
-- authsvc, the owner, is its only reader and writer; with RLS on and no
-- policy, a grant to another role would still show that role nothing.
alter table auth.rate_limits enable row level security;

-- One failed-password check (ratelimit.Failures.Begin): may the source try a
-- password at the account now? If so the attempt is counted as a failure
-- (authsvc refunds it when the password is right). The rules:
--   * the pair (account, source) has its own bucket, source_events per
--     source_window seconds; an empty bucket refuses;
--   * the account has a cap, account_events per account_window seconds, over
--     all sources. While it has a token anyone within their own budget may
--     try. Once it is spent, a source that has failed here over_cap_tries
--     times or more with no pause of a whole account_window is refused;
--     others may try. An allowed attempt still takes from the cap, down to a
--     debt of one cap; charged says it took a token.
-- A rate with events <= 0 or window <= 0 is off. The account's row is locked
-- before the pair's, so attempts at one account queue in one order. Call it
-- as a statement of its own: it turns synchronous_commit off for the
-- transaction it runs in.
create function auth.rate_limit_password_sign_in(
  pair_key text, account_key text,
  source_events double precision, source_window double precision,
  account_events double precision, account_window double precision,
  over_cap_tries integer, at timestamptz,
  out allowed boolean, out charged boolean)
language plpgsql
set search_path = ''
as $$
declare
  source_on constant boolean := source_events > 0 and source_window > 0;
  account_on constant boolean := account_events > 0 and account_window > 0;
  pair auth.rate_limits;
  acct auth.rate_limits;
  source_tokens double precision;
  account_tokens double precision;
  recent integer;
  failed timestamptz;
begin
  perform set_config('synchronous_commit', 'off', true); -- see the top of this file
  allowed := false;
  charged := false;
  at := coalesce(at, statement_timestamp());
  if not source_on and not account_on then
    allowed := true;
    return;
  end if;

  if account_on then
    select * into acct from auth.rate_limits where key = account_key for update;
    if not found then
      -- A new bucket, or one another attempt is creating right now: the
      -- no-op update waits for that one and locks it.
      insert into auth.rate_limits as r (key, tokens, updated_at, expires_at)
        values (account_key, account_events, at, at)
        on conflict (key) do update set key = r.key
        returning * into acct;
    end if;
    account_tokens := least(acct.tokens + greatest(extract(epoch from at - acct.updated_at)::float8, 0)
                                          * account_events / account_window, account_events);
  end if;
  select * into pair from auth.rate_limits where key = pair_key for update;
  if not found then
    insert into auth.rate_limits as r (key, tokens, updated_at, expires_at)
      values (pair_key, greatest(source_events, 0), at, at)
      on conflict (key) do update set key = r.key
      returning * into pair;
  end if;
  source_tokens := pair.tokens;
  if source_on then
    source_tokens := least(pair.tokens + greatest(extract(epoch from at - pair.updated_at)::float8, 0)
                                         * source_events / source_window, source_events);
  end if;
  recent := pair.failures;
  if not account_on or pair.failed_at is null
     or pair.failed_at <= at - make_interval(secs => account_window) then
    recent := 0; -- the source has paused for a whole window of the cap
  end if;

  if source_on and source_tokens < 1 then
    return; -- the source's own budget is spent
  end if;
  if account_on and account_tokens < 1 and recent >= over_cap_tries then
    return; -- the cap is spent and this source has been guessing
  end if;
  allowed := true;

  if source_on then
    source_tokens := source_tokens - 1;
  end if;
  failed := greatest(pair.failed_at, at);
  update auth.rate_limits set
    tokens = source_tokens,
    updated_at = greatest(pair.updated_at, at),
    failures = recent + 1,
    failed_at = failed,
    -- full again, and the failures no longer recent
    expires_at = greatest(
      case when source_on then greatest(pair.updated_at, at)
                               + make_interval(secs => (source_events - source_tokens) * source_window / source_events) end,
      case when account_on then failed + make_interval(secs => account_window) end)
  where key = pair_key;
  if account_on then
    if account_tokens > -account_events then
      account_tokens := account_tokens - 1;
      charged := true;
    end if;
    update auth.rate_limits set
      tokens = account_tokens,
      updated_at = greatest(acct.updated_at, at),
      expires_at = greatest(acct.updated_at, at)
                   + make_interval(secs => (account_events - account_tokens) * account_window / account_events)
    where key = account_key;
  end if;
end
$$;
comment on function auth.rate_limit_password_sign_in(text, text, double precision, double precision, double precision, double precision, integer, timestamptz) is
  'authsvc: may a source try a password at an account now (failures per (account, source), a cap per account)? Counts the attempt as a failure; charged = it took a token from the account''s cap, which a success gives back. at null = the database''s clock.';
alter function auth.rate_limit_password_sign_in(text, text, double precision, double precision, double precision, double precision, integer, timestamptz) owner to supabase_auth_admin;
revoke execute on function auth.rate_limit_password_sign_in(text, text, double precision, double precision, double precision, double precision, integer, timestamptz) from public;

-- A password was right (ratelimit.Attempt.Succeeded): the source's count at
-- the account starts afresh, and the cap gets back the token the attempt
-- took (refund, from the function above's charged), up to account_events.
-- The account's row is locked before the pair's, as above.
create function auth.rate_limit_password_sign_in_succeeded(
  pair_key text, account_key text, refund boolean, account_events double precision)
returns void
language plpgsql
set search_path = ''
as $$
begin
  perform set_config('synchronous_commit', 'off', true); -- see the top of this file
  if refund then
    update auth.rate_limits set tokens = least(tokens + 1, account_events) where key = account_key;
  end if;
  delete from auth.rate_limits where key = pair_key;
end
$$;
comment on function auth.rate_limit_password_sign_in_succeeded(text, text, boolean, double precision) is
  'authsvc: a right password forgets the (account, source) pair''s failures and, when refund, gives the account''s cap its token back.';
alter function auth.rate_limit_password_sign_in_succeeded(text, text, boolean, double precision) owner to supabase_auth_admin;
revoke execute on function auth.rate_limit_password_sign_in_succeeded(text, text, boolean, double precision) from public;
