--
-- PostgreSQL database dump
--

-- Dumped from database version 15.8
-- Dumped by pg_dump version 15.8

-- The shape of `pg_dump --data-only --schema=auth` of a Supabase project
-- (one user with a password, an identity, a session with its refresh
-- tokens, a TOTP factor, SSO configuration and GoTrue's migration ledger).

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Data for Name: audit_log_entries; Type: TABLE DATA; Schema: auth; Owner: supabase_auth_admin
--

COPY auth.audit_log_entries (instance_id, id, payload, created_at, ip_address) FROM stdin;
00000000-0000-0000-0000-000000000000	5b6f0b2e-4b1c-4c55-9a0e-0d6f3b0e9e01	{"action":"login","actor_id":"d0c4a1b2-3e4f-4a5b-8c6d-7e8f9a0b1c2d","actor_username":"wanjiru@example.co.ke","actor_via_sso":false,"log_type":"account","traits":{"provider":"email"}}	2024-05-02 08:15:00.123456+00	196.201.214.10
\.

COPY auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge, provider_type, provider_access_token, provider_refresh_token, created_at, updated_at, authentication_method, auth_code_issued_at) FROM stdin;
7a1d6c3e-2b4f-4e8a-9c0d-1e2f3a4b5c6d	\N	9c1f0a3e-5d2b-4c7e-8f6a-0b1c2d3e4f5a	s256	E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM	google			2024-05-02 08:10:00+00	2024-05-02 08:10:00+00	oauth	\N
\.

COPY auth.instances (id, uuid, raw_base_config, created_at, updated_at) FROM stdin;
\.

COPY auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, invited_at, confirmation_token, confirmation_sent_at, recovery_token, recovery_sent_at, email_change_token_new, email_change, email_change_sent_at, last_sign_in_at, raw_app_meta_data, raw_user_meta_data, is_super_admin, created_at, updated_at, phone, phone_confirmed_at, phone_change, phone_change_token, phone_change_sent_at, email_change_token_current, email_change_confirm_status, banned_until, reauthentication_token, reauthentication_sent_at, is_sso_user, deleted_at, is_anonymous) FROM stdin;
00000000-0000-0000-0000-000000000000	d0c4a1b2-3e4f-4a5b-8c6d-7e8f9a0b1c2d	authenticated	authenticated	wanjiru@example.co.ke	$2a$04$yv41gx7.KK2YFIHWZnR.6./qauMez2Rvarb4OpsRki8aohi7mju8C	2024-05-01 10:00:00+00	\N		2024-05-01 09:59:00+00		\N			\N	2024-05-02 08:15:00+00	{"provider": "email", "providers": ["email"]}	{"sub": "d0c4a1b2-3e4f-4a5b-8c6d-7e8f9a0b1c2d", "email": "wanjiru@example.co.ke", "full_name": "Wanjiru Kamau", "email_verified": true, "phone_verified": false}	\N	2024-05-01 09:59:00+00	2024-05-02 08:15:00+00	254712345678	\N			\N		0	\N		\N	f	\N	f
\.

COPY auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at, id) FROM stdin;
d0c4a1b2-3e4f-4a5b-8c6d-7e8f9a0b1c2d	d0c4a1b2-3e4f-4a5b-8c6d-7e8f9a0b1c2d	{"sub": "d0c4a1b2-3e4f-4a5b-8c6d-7e8f9a0b1c2d", "email": "wanjiru@example.co.ke", "email_verified": false, "phone_verified": false}	email	2024-05-01 09:59:00+00	2024-05-01 09:59:00+00	2024-05-01 09:59:00+00	3f2e1d0c-9b8a-4765-8432-10fedcba9876
\.

COPY auth.sessions (id, user_id, created_at, updated_at, factor_id, aal, not_after, refreshed_at, user_agent, ip, tag) FROM stdin;
c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f	d0c4a1b2-3e4f-4a5b-8c6d-7e8f9a0b1c2d	2024-05-02 08:15:00+00	2024-05-02 09:15:00+00	\N	aal1	\N	2024-05-02 09:15:00.5	Mozilla/5.0 (Linux; Android 14)	196.201.214.10	\N
\.

COPY auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method, id) FROM stdin;
c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f	2024-05-02 08:15:00+00	2024-05-02 08:15:00+00	password	6e5d4c3b-2a19-4887-9665-544332211000
\.

COPY auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret, phone, last_challenged_at, web_authn_credential, web_authn_aaguid) FROM stdin;
9f8e7d6c-5b4a-4938-8271-605f4e3d2c1b	d0c4a1b2-3e4f-4a5b-8c6d-7e8f9a0b1c2d	Phone app	totp	verified	2024-05-01 11:00:00+00	2024-05-01 11:01:00+00	JBSWY3DPEHPK3PXP	\N	2024-05-01 11:01:00+00	\N	\N
\.

COPY auth.mfa_challenges (id, factor_id, created_at, verified_at, ip_address, otp_code, web_authn_session_data) FROM stdin;
1a2b3c4d-5e6f-4a8b-9c0d-e1f2a3b4c5d6	9f8e7d6c-5b4a-4938-8271-605f4e3d2c1b	2024-05-01 11:00:30+00	2024-05-01 11:01:00+00	196.201.214.10	\N	\N
\.

COPY auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to, created_at, updated_at) FROM stdin;
2b3c4d5e-6f7a-4b9c-8d1e-f2a3b4c5d6e7	d0c4a1b2-3e4f-4a5b-8c6d-7e8f9a0b1c2d	recovery_token	5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8	wanjiru@example.co.ke	2024-05-03 07:00:00	2024-05-03 07:00:00
\.

COPY auth.refresh_tokens (instance_id, id, token, user_id, revoked, created_at, updated_at, parent, session_id) FROM stdin;
00000000-0000-0000-0000-000000000000	41	q7hvx2kmd3ab	d0c4a1b2-3e4f-4a5b-8c6d-7e8f9a0b1c2d	t	2024-05-02 08:15:00+00	2024-05-02 09:15:00+00	\N	c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f
00000000-0000-0000-0000-000000000000	42	z9pwn4tqe8cf	d0c4a1b2-3e4f-4a5b-8c6d-7e8f9a0b1c2d	f	2024-05-02 09:15:00+00	2024-05-02 09:15:00+00	q7hvx2kmd3ab	c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f
\.

COPY auth.sso_providers (id, resource_id, created_at, updated_at, disabled) FROM stdin;
4c5d6e7f-8a9b-4c0d-9e1f-2a3b4c5d6e7f	kejanest-staff	2024-04-01 00:00:00+00	2024-04-01 00:00:00+00	\N
\.

COPY auth.saml_providers (id, sso_provider_id, entity_id, metadata_xml, metadata_url, attribute_mapping, created_at, updated_at, name_id_format) FROM stdin;
5d6e7f8a-9b0c-4d1e-8f2a-3b4c5d6e7f8a	4c5d6e7f-8a9b-4c0d-9e1f-2a3b4c5d6e7f	https://idp.example.co.ke/saml	<EntityDescriptor entityID="https://idp.example.co.ke/saml"/>	\N	{"keys": {"email": {"name": "mail"}}}	2024-04-01 00:00:00+00	2024-04-01 00:00:00+00	\N
\.

COPY auth.saml_relay_states (id, sso_provider_id, request_id, for_email, redirect_to, created_at, updated_at, flow_state_id) FROM stdin;
6e7f8a9b-0c1d-4e2f-9a3b-4c5d6e7f8a9b	4c5d6e7f-8a9b-4c0d-9e1f-2a3b4c5d6e7f	id-7f3c2a	\N	https://kejanest.example/home	2024-05-02 08:00:00+00	2024-05-02 08:00:00+00	7a1d6c3e-2b4f-4e8a-9c0d-1e2f3a4b5c6d
\.

COPY auth.schema_migrations (version) FROM stdin;
00
20210710035447
20240612123726
\.

COPY auth.sso_domains (id, sso_provider_id, domain, created_at, updated_at) FROM stdin;
7f8a9b0c-1d2e-4f3a-8b4c-5d6e7f8a9b0c	4c5d6e7f-8a9b-4c0d-9e1f-2a3b4c5d6e7f	staff.kejanest.example	2024-04-01 00:00:00+00	2024-04-01 00:00:00+00
\.

SELECT pg_catalog.setval('auth.refresh_tokens_id_seq', 42, true);

--
-- PostgreSQL database dump complete
--
