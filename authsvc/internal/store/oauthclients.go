package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// OAuthClient is one auth.oauth_clients row (a client of authsvc's OAuth
// 2.1 server). Optional text columns read as "".
type OAuthClient struct {
	ID               string
	SecretHash       string // "" for a public client
	RegistrationType string
	ClientType       string
	RedirectURIs     []string
	GrantTypes       []string
	ClientName       string
	ClientURI        string
	LogoURI          string
	// TokenEndpointAuthMethod is none, client_secret_basic or
	// client_secret_post.
	TokenEndpointAuthMethod string
	CreatedAt               time.Time
	UpdatedAt               time.Time
}

// redirect_uris and grant_types are comma-separated text, as GoTrue keeps
// them (a comma cannot occur in a valid redirect URI's scheme or host, and
// GoTrue splits on it too).
const oauthClientCols = `id::text, coalesce(client_secret_hash,''), registration_type::text, client_type::text,
 string_to_array(redirect_uris, ','), string_to_array(grant_types, ','),
 coalesce(client_name,''), coalesce(client_uri,''), coalesce(logo_uri,''),
 coalesce(token_endpoint_auth_method, case client_type when 'public' then 'none' else 'client_secret_basic' end), created_at, updated_at`

func scanOAuthClient(row pgx.Row) (*OAuthClient, error) {
	c := &OAuthClient{}
	err := row.Scan(&c.ID, &c.SecretHash, &c.RegistrationType, &c.ClientType, &c.RedirectURIs, &c.GrantTypes,
		&c.ClientName, &c.ClientURI, &c.LogoURI, &c.TokenEndpointAuthMethod, &c.CreatedAt, &c.UpdatedAt)
	return c, err
}

// CreateOAuthClient inserts c.
func (q *Q) CreateOAuthClient(ctx context.Context, c *OAuthClient) error {
	_, err := q.db.Exec(ctx, `insert into auth.oauth_clients (id, client_secret_hash, registration_type, client_type, redirect_uris,
		grant_types, client_name, client_uri, logo_uri, token_endpoint_auth_method, created_at, updated_at)
		values ($1::uuid, $2, $3::auth.oauth_registration_type, $4::auth.oauth_client_type, array_to_string($5::text[], ','),
		array_to_string($6::text[], ','), $7, $8, $9, $10, $11, $11)`,
		c.ID, nullIfEmpty(c.SecretHash), c.RegistrationType, c.ClientType, c.RedirectURIs, c.GrantTypes,
		nullIfEmpty(c.ClientName), nullIfEmpty(c.ClientURI), nullIfEmpty(c.LogoURI), c.TokenEndpointAuthMethod, c.CreatedAt)
	return wrap("create oauth client", err)
}

// OAuthClientByID loads a client that is not deleted.
func (q *Q) OAuthClientByID(ctx context.Context, id string) (*OAuthClient, error) {
	c, err := scanOAuthClient(q.db.QueryRow(ctx, `select `+oauthClientCols+` from auth.oauth_clients
		where id::text = $1 and deleted_at is null`, id))
	return c, wrap("load oauth client", err)
}

// OAuthClients lists the clients that are not deleted, newest first, and
// how many there are: perPage from (page-1)*perPage, or all of them when
// perPage is 0.
func (q *Q) OAuthClients(ctx context.Context, page, perPage int) ([]*OAuthClient, int, error) {
	var total int
	if err := q.db.QueryRow(ctx, `select count(*) from auth.oauth_clients where deleted_at is null`).Scan(&total); err != nil {
		return nil, 0, wrap("count oauth clients", err)
	}
	var limit any // null: no limit
	if perPage > 0 {
		limit = perPage
	}
	rows, err := q.db.Query(ctx, `select `+oauthClientCols+` from auth.oauth_clients where deleted_at is null
		order by created_at desc, id limit $1::int offset $2`, limit, (page-1)*perPage)
	if err != nil {
		return nil, 0, wrap("list oauth clients", err)
	}
	defer rows.Close()
	out := []*OAuthClient{}
	for rows.Next() {
		c, err := scanOAuthClient(rows)
		if err != nil {
			return nil, 0, wrap("list oauth clients", err)
		}
		out = append(out, c)
	}
	return out, total, wrap("list oauth clients", rows.Err())
}

// SaveOAuthClient writes every mutable column of c and sets updated_at.
func (q *Q) SaveOAuthClient(ctx context.Context, c *OAuthClient, now time.Time) error {
	c.UpdatedAt = now
	tag, err := q.db.Exec(ctx, `update auth.oauth_clients set client_secret_hash=$2, redirect_uris=array_to_string($3::text[], ','),
		grant_types=array_to_string($4::text[], ','),
		client_name=$5, client_uri=$6, logo_uri=$7, updated_at=$8 where id::text = $1 and deleted_at is null`,
		c.ID, nullIfEmpty(c.SecretHash), c.RedirectURIs, c.GrantTypes, nullIfEmpty(c.ClientName), nullIfEmpty(c.ClientURI),
		nullIfEmpty(c.LogoURI), now)
	if err == nil && tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return wrap("save oauth client", err)
}

// DeleteOAuthClient soft-deletes a client, as GoTrue does.
func (q *Q) DeleteOAuthClient(ctx context.Context, id string, now time.Time) error {
	tag, err := q.db.Exec(ctx, `update auth.oauth_clients set deleted_at=$2, updated_at=$2 where id::text = $1 and deleted_at is null`, id, now)
	if err == nil && tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return wrap("delete oauth client", err)
}
