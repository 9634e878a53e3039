// Package config reads the storage service's settings from the environment
// once, in main, and checks them before anything listens.
package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/jwtverify"
)

// Storage backends.
const (
	BackendFile = "file"
	BackendS3   = "s3"
)

// minJWTSecretLen is the shortest HMAC secret accepted.
const minJWTSecretLen = 32

// Defaults of the image memory budget; objects.DefaultImageMemoryLimit and
// objects.DefaultImageQueueTimeout are the same (config_test checks).
const (
	DefaultImageMemoryLimit  = 256 << 20
	DefaultImageQueueTimeout = 30 * time.Second
)

// Config is the storage service's whole configuration, under Supabase
// Storage's own variable names (supabase/storage src/config.ts). The
// defaults reproduce the Supabase CLI's local stack with a local directory
// as the object store.
//
//	variable                   fallback                      default                                                          meaning
//	DATABASE_URL                                             postgres://authenticator@127.0.0.1:54322/postgres?sslmode=disable  login role that switches to the caller's role
//	SERVER_HOST                                              127.0.0.1                                                        listen host
//	SERVER_PORT                                              5000                                                             listen port
//	AUTH_JWT_SECRET            PGRST_JWT_SECRET, JWT_SECRET  devkeys.JWTSecret                                                HS256 secret, at least 32 characters; also signs signed URLs
//	JWT_JWKS                                                 ""                                                               public JWKS (Supabase's JWT_JWKS): asymmetric keys by kid, "oct" keys for HS256
//	ANON_KEY                                                 devkeys.AnonKey                                                  the anon API key
//	SERVICE_KEY                                              devkeys.ServiceRoleKey                                           the service_role API key
//	STORAGE_BACKEND                                          file                                                             file or s3
//	FILE_STORAGE_BACKEND_PATH                                .data/storage                                                    root directory of the file backend
//	FILE_SIZE_LIMIT                                          52428800                                                         largest object, in bytes
//	IMAGE_PROCESSING_MEMORY_LIMIT                            268435456                                                        bytes image uploads may hold at once while decoded, re-encoded or held whole
//	IMAGE_TRANSFORMATION_ENABLED  ENABLE_IMAGE_TRANSFORMATION  true                                                             serve /render/image and sign URLs with a transform
//	IMAGE_TRANSFORMATION_LIMIT_MIN_SIZE  IMG_LIMITS_MIN_SIZE  1                                                                requested width/height are clamped to at least this
//	IMAGE_TRANSFORMATION_LIMIT_MAX_SIZE  IMG_LIMITS_MAX_SIZE  2500                                                             … and at most this
//	IMGPROXY_MAX_SRC_RESOLUTION                              50                                                               largest source to transform, in megapixels
//	IMGPROXY_MAX_SRC_FILE_SIZE                               25000000                                                         largest source to transform, in bytes
//	IMGPROXY_WORKERS              IMGPROXY_CONCURRENCY       number of CPUs                                                   transformations running at once; others wait IMAGE_PROCESSING_QUEUE_TIMEOUT
//	IMAGE_PROCESSING_QUEUE_TIMEOUT                           30                                                               how long an image upload waits for that memory (seconds, or a Go duration) before SlowDown (429)
//	TUS_URL_EXPIRY_MS                                        3600000                                                          how long an unfinished resumable (TUS) upload is kept, in milliseconds
//	TUS_LOCK_CONNECTIONS                                     10                                                               database connections holding upload locks: the resumable chunks one replica receives at once (more wait, then 423)
//	STORAGE_S3_BUCKET                                        ""                                                               s3 backend: bucket (required)
//	STORAGE_S3_ENDPOINT                                      ""                                                               s3 backend: endpoint URL; empty is AWS
//	STORAGE_S3_REGION                                        ""                                                               s3 backend: region
//	STORAGE_S3_FORCE_PATH_STYLE                              true when STORAGE_S3_ENDPOINT is set                             s3 backend: bucket in the path (MinIO) rather than the host
//	AWS_ACCESS_KEY_ID                                        ""                                                               s3 backend: credentials (both or neither)
//	AWS_SECRET_ACCESS_KEY                                    ""
//	LOG_LEVEL                                                info                                                             trace, debug, info, warn, error or fatal
//	KEJANEST_ENV                                             "" (development)                                                 production refuses empty or well-known dev secrets
type Config struct {
	// DatabaseURL is the connection string (DATABASE_URL).
	DatabaseURL string
	// Host and Port are the listen address (SERVER_HOST, SERVER_PORT).
	Host string
	Port int
	// JWTSecret verifies bearer tokens and signs URLs (AUTH_JWT_SECRET,
	// PGRST_JWT_SECRET, JWT_SECRET).
	JWTSecret string
	// JWKS verifies bearer tokens by kid (JWT_JWKS).
	JWKS string
	// AnonKey and ServiceKey are the API keys (ANON_KEY, SERVICE_KEY).
	AnonKey, ServiceKey string
	// Backend is BackendFile or BackendS3 (STORAGE_BACKEND).
	Backend string
	// FilePath is the file backend's root (FILE_STORAGE_BACKEND_PATH).
	FilePath string
	// FileSizeLimit is the largest object in bytes (FILE_SIZE_LIMIT).
	FileSizeLimit int
	// ImageMemoryLimit is the memory, in bytes, that image uploads may
	// hold at once (IMAGE_PROCESSING_MEMORY_LIMIT); an image that alone
	// needs more is refused.
	ImageMemoryLimit int
	// ImageQueueTimeout is how long an image upload waits for its memory
	// before it is refused with SlowDown (IMAGE_PROCESSING_QUEUE_TIMEOUT).
	ImageQueueTimeout time.Duration
	// TusURLExpiry is how long an unfinished resumable upload is kept
	// (TUS_URL_EXPIRY_MS).
	TusURLExpiry time.Duration
	// TusLockConnections is the size of the pool that holds the
	// resumable uploads' locks, one connection per chunk being received
	// (TUS_LOCK_CONNECTIONS).
	TusLockConnections int
	// Image transformation (/render/image): on or off, the clamp of the
	// requested dimensions, the largest source, and the renders running
	// at once (IMAGE_TRANSFORMATION_*, IMGPROXY_*).
	ImageTransformation                     bool
	ImageLimitMinSize, ImageLimitMaxSize    int
	ImageMaxSourcePixels                    int64
	ImageMaxSourceBytes, ImageRenderWorkers int
	// S3 settings (STORAGE_S3_BUCKET, STORAGE_S3_ENDPOINT,
	// STORAGE_S3_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY).
	S3Bucket, S3Endpoint, S3Region     string
	AWSAccessKeyID, AWSSecretAccessKey string
	// S3ForcePathStyle addresses the bucket in the URL path
	// (STORAGE_S3_FORCE_PATH_STYLE; default: true with a custom endpoint).
	S3ForcePathStyle bool
	// LogLevel is Storage's (pino) level name (LOG_LEVEL); SlogLevel maps it
	// for platform/logging.
	LogLevel string
	// Production is true when KEJANEST_ENV names production.
	Production bool
}

// Load reads the configuration through r. It returns the parse errors of
// malformed values (all of them) alongside the best-effort Config; callers
// still run Validate.
func Load(r *envconf.Reader) (Config, error) {
	c := Config{
		DatabaseURL:        r.String("postgres://authenticator@127.0.0.1:54322/postgres?sslmode=disable", "DATABASE_URL"),
		Host:               r.String("127.0.0.1", "SERVER_HOST"),
		Port:               r.Int(5000, "SERVER_PORT"),
		JWTSecret:          r.String(devkeys.JWTSecret, "AUTH_JWT_SECRET", "PGRST_JWT_SECRET", "JWT_SECRET"),
		JWKS:               r.String("", "JWT_JWKS"),
		AnonKey:            r.String(devkeys.AnonKey, "ANON_KEY"),
		ServiceKey:         r.String(devkeys.ServiceRoleKey, "SERVICE_KEY"),
		Backend:            strings.ToLower(r.String(BackendFile, "STORAGE_BACKEND")),
		FilePath:           r.String(".data/storage", "FILE_STORAGE_BACKEND_PATH"),
		FileSizeLimit:      r.Int(50*1024*1024, "FILE_SIZE_LIMIT"),
		ImageMemoryLimit:   r.Int(DefaultImageMemoryLimit, "IMAGE_PROCESSING_MEMORY_LIMIT"),
		ImageQueueTimeout:  r.Duration(DefaultImageQueueTimeout, "IMAGE_PROCESSING_QUEUE_TIMEOUT"),
		TusURLExpiry:       time.Duration(r.Int(3600000, "TUS_URL_EXPIRY_MS")) * time.Millisecond,
		TusLockConnections: r.Int(10, "TUS_LOCK_CONNECTIONS"),
		S3Bucket:           r.String("", "STORAGE_S3_BUCKET"),
		S3Endpoint:         r.String("", "STORAGE_S3_ENDPOINT"),
		S3Region:           r.String("", "STORAGE_S3_REGION"),
		AWSAccessKeyID:     r.String("", "AWS_ACCESS_KEY_ID"),
		AWSSecretAccessKey: r.String("", "AWS_SECRET_ACCESS_KEY"),
		LogLevel:           strings.ToLower(r.String("info", "LOG_LEVEL")),
		Production:         devkeys.IsProduction(r.String("", devkeys.EnvVar)),
	}
	c.S3ForcePathStyle = r.Bool(c.S3Endpoint != "", "STORAGE_S3_FORCE_PATH_STYLE")
	c.ImageTransformation = r.Bool(true, "IMAGE_TRANSFORMATION_ENABLED", "ENABLE_IMAGE_TRANSFORMATION")
	c.ImageLimitMinSize = r.Int(1, "IMAGE_TRANSFORMATION_LIMIT_MIN_SIZE", "IMG_LIMITS_MIN_SIZE")
	c.ImageLimitMaxSize = r.Int(2500, "IMAGE_TRANSFORMATION_LIMIT_MAX_SIZE", "IMG_LIMITS_MAX_SIZE")
	c.ImageMaxSourceBytes = r.Int(25_000_000, "IMGPROXY_MAX_SRC_FILE_SIZE")
	c.ImageRenderWorkers = r.Int(runtime.NumCPU(), "IMGPROXY_WORKERS", "IMGPROXY_CONCURRENCY")
	// imgproxy takes its resolution limit in (fractional) megapixels.
	mp := r.String("50", "IMGPROXY_MAX_SRC_RESOLUTION")
	if f, err := strconv.ParseFloat(mp, 64); err == nil && f > 0 {
		c.ImageMaxSourcePixels = int64(f * 1e6)
	}
	return c, r.Err()
}

// Validate reports every problem that would stop the service from serving
// correctly, including development secrets in production mode.
func (c Config) Validate() error {
	var errs []error
	if _, err := pgconn.ParseConfig(c.DatabaseURL); err != nil {
		errs = append(errs, fmt.Errorf("DATABASE_URL: %w", err))
	}
	if c.Host == "" {
		errs = append(errs, errors.New("SERVER_HOST: empty"))
	}
	if c.Port < 1 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("SERVER_PORT: %d is not a port (1-65535)", c.Port))
	}
	if len(c.JWTSecret) < minJWTSecretLen {
		errs = append(errs, fmt.Errorf("AUTH_JWT_SECRET: must be at least %d characters", minJWTSecretLen))
	} else if err := jwtverify.CheckConfig("AUTH_JWT_SECRET", c.JWTSecret, "JWT_JWKS", c.JWKS, minJWTSecretLen); err != nil {
		errs = append(errs, err)
	}
	if c.FileSizeLimit < 1 {
		errs = append(errs, fmt.Errorf("FILE_SIZE_LIMIT: %d, want a positive number of bytes", c.FileSizeLimit))
	}
	if c.ImageMemoryLimit < 1 {
		errs = append(errs, fmt.Errorf("IMAGE_PROCESSING_MEMORY_LIMIT: %d, want a positive number of bytes", c.ImageMemoryLimit))
	}
	if c.ImageQueueTimeout < 0 {
		errs = append(errs, fmt.Errorf("IMAGE_PROCESSING_QUEUE_TIMEOUT: %s, want zero or more", c.ImageQueueTimeout))
	}
	if c.ImageMaxSourcePixels < 1 {
		errs = append(errs, errors.New("IMGPROXY_MAX_SRC_RESOLUTION: want a positive number of megapixels"))
	}
	if c.ImageLimitMinSize < 1 || c.ImageLimitMaxSize < c.ImageLimitMinSize {
		errs = append(errs, fmt.Errorf("IMAGE_TRANSFORMATION_LIMIT_MIN_SIZE, _MAX_SIZE: %d, %d, want 1 <= min <= max", c.ImageLimitMinSize, c.ImageLimitMaxSize))
	}
	if c.ImageMaxSourceBytes < 1 || c.ImageRenderWorkers < 1 {
		errs = append(errs, fmt.Errorf("IMGPROXY_MAX_SRC_FILE_SIZE, IMGPROXY_WORKERS: %d, %d, want positive numbers", c.ImageMaxSourceBytes, c.ImageRenderWorkers))
	}
	if c.TusURLExpiry < time.Second {
		errs = append(errs, fmt.Errorf("TUS_URL_EXPIRY_MS: %d, want at least 1000", c.TusURLExpiry.Milliseconds()))
	}
	if c.TusLockConnections < 1 || c.TusLockConnections > math.MaxInt32 {
		errs = append(errs, fmt.Errorf("TUS_LOCK_CONNECTIONS: %d, want a positive number", c.TusLockConnections))
	}
	switch c.Backend {
	case BackendFile:
		if c.FilePath == "" {
			errs = append(errs, errors.New("FILE_STORAGE_BACKEND_PATH: empty"))
		}
	case BackendS3:
		if c.S3Bucket == "" {
			errs = append(errs, errors.New("STORAGE_S3_BUCKET: required with STORAGE_BACKEND=s3"))
		}
		if c.S3Endpoint != "" {
			if err := checkURL(c.S3Endpoint); err != nil {
				errs = append(errs, fmt.Errorf("STORAGE_S3_ENDPOINT: %w", err))
			}
		}
		if (c.AWSAccessKeyID == "") != (c.AWSSecretAccessKey == "") {
			errs = append(errs, errors.New("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: set both or neither"))
		}
	default:
		errs = append(errs, fmt.Errorf("STORAGE_BACKEND: %q, want file or s3", c.Backend))
	}
	if _, ok := slogLevels[c.LogLevel]; !ok {
		errs = append(errs, fmt.Errorf("LOG_LEVEL: %q, want trace, debug, info, warn, error or fatal", c.LogLevel))
	}
	if c.Production {
		if err := devkeys.Refuse(map[string]string{
			"AUTH_JWT_SECRET": c.JWTSecret,
			"ANON_KEY":        c.AnonKey,
			"SERVICE_KEY":     c.ServiceKey,
		}); err != nil {
			errs = append(errs, fmt.Errorf("production mode (%s): %w", devkeys.EnvVar, err))
		}
	}
	return errors.Join(errs...)
}

// checkURL accepts an absolute http(s) URL with a host.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return fmt.Errorf("%q: no host", raw)
	}
	return nil
}

// slogLevels maps pino level names onto platform/logging's.
var slogLevels = map[string]string{
	"trace": "debug", "debug": "debug", "info": "info", "warn": "warn", "error": "error", "fatal": "error",
}

// SlogLevel is LogLevel as platform/logging names it.
func (c Config) SlogLevel() string { return slogLevels[c.LogLevel] }

// Addr is the listen address, host:port.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }
