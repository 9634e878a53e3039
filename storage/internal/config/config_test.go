package config

import (
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/storage/internal/objects"
)

const goodSecret = "a-production-secret-that-is-long-enough-0123456789"

// prodKeys are non-development values for every secret.
var prodKeys = map[string]string{
	"KEJANEST_ENV": "production", "AUTH_JWT_SECRET": goodSecret, "ANON_KEY": "anon-prod", "SERVICE_KEY": "service-prod",
}

func with(base map[string]string, kv ...string) map[string]string {
	m := map[string]string{}
	for k, v := range base {
		m[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func TestLoad(t *testing.T) {
	t.Parallel()
	defaults := Config{
		DatabaseURL:   "postgres://authenticator@127.0.0.1:54322/postgres?sslmode=disable",
		Host:          "127.0.0.1",
		Port:          5000,
		JWTSecret:     devkeys.JWTSecret,
		AnonKey:       devkeys.AnonKey,
		ServiceKey:    devkeys.ServiceRoleKey,
		Backend:       "file",
		FilePath:      ".data/storage",
		FileSizeLimit: 52428800,
		LogLevel:      "info",

		ImageMemoryLimit:   268435456,
		ImageQueueTimeout:  30 * time.Second,
		TusURLExpiry:       time.Hour,
		TusLockConnections: 10,
	}
	defaults.ImageTransformation, defaults.ImageLimitMinSize, defaults.ImageLimitMaxSize = true, 1, 2500
	defaults.ImageMaxSourcePixels, defaults.ImageMaxSourceBytes, defaults.ImageRenderWorkers = 50_000_000, 25_000_000, runtime.NumCPU()
	tests := []struct {
		name    string
		env     map[string]string
		want    func(c *Config)
		wantErr string
	}{
		{name: "defaults", want: func(c *Config) {}},
		{
			name: "s3 backend",
			env: map[string]string{
				"STORAGE_BACKEND": "S3", "STORAGE_S3_BUCKET": "kejanest", "STORAGE_S3_ENDPOINT": "http://127.0.0.1:9000",
				"STORAGE_S3_REGION": "af-south-1", "AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret",
				"SERVER_HOST": "0.0.0.0", "SERVER_PORT": "5050", "FILE_SIZE_LIMIT": "1048576", "LOG_LEVEL": "trace",
			},
			want: func(c *Config) {
				c.Backend, c.S3Bucket, c.S3Endpoint, c.S3Region = "s3", "kejanest", "http://127.0.0.1:9000", "af-south-1"
				c.S3ForcePathStyle = true
				c.AWSAccessKeyID, c.AWSSecretAccessKey = "id", "secret"
				c.Host, c.Port, c.FileSizeLimit, c.LogLevel = "0.0.0.0", 5050, 1048576, "trace"
			},
		},
		{name: "s3 with ambient credentials", env: map[string]string{"STORAGE_BACKEND": "s3", "STORAGE_S3_BUCKET": "b"},
			want: func(c *Config) { c.Backend, c.S3Bucket = "s3", "b" }},
		{name: "secret fallback PGRST_JWT_SECRET", env: map[string]string{"PGRST_JWT_SECRET": goodSecret, "JWT_SECRET": "ignored-secret-that-is-long-enough-xxxxx"},
			want: func(c *Config) { c.JWTSecret = goodSecret }},
		{name: "secret fallback JWT_SECRET", env: map[string]string{"JWT_SECRET": goodSecret}, want: func(c *Config) { c.JWTSecret = goodSecret }},
		{name: "AUTH_JWT_SECRET wins", env: map[string]string{"AUTH_JWT_SECRET": goodSecret, "PGRST_JWT_SECRET": "ignored-secret-that-is-long-enough-xxxxx"},
			want: func(c *Config) { c.JWTSecret = goodSecret }},
		{name: "production with real secrets", env: prodKeys, want: func(c *Config) {
			c.Production, c.JWTSecret, c.AnonKey, c.ServiceKey = true, goodSecret, "anon-prod", "service-prod"
		}},
		{name: "image memory and queue", env: map[string]string{"IMAGE_PROCESSING_MEMORY_LIMIT": "67108864", "IMAGE_PROCESSING_QUEUE_TIMEOUT": "5"},
			want: func(c *Config) { c.ImageMemoryLimit, c.ImageQueueTimeout = 64<<20, 5*time.Second }},
		{name: "image queue as a duration, none", env: map[string]string{"IMAGE_PROCESSING_QUEUE_TIMEOUT": "0s"},
			want: func(c *Config) { c.ImageQueueTimeout = 0 }},
		{name: "tus expiry", env: map[string]string{"TUS_URL_EXPIRY_MS": "60000"},
			want: func(c *Config) { c.TusURLExpiry = time.Minute }},
		{name: "tus lock connections", env: map[string]string{"TUS_LOCK_CONNECTIONS": "32"},
			want: func(c *Config) { c.TusLockConnections = 32 }},
		{name: "image transformation", env: map[string]string{
			"ENABLE_IMAGE_TRANSFORMATION": "false", "IMG_LIMITS_MIN_SIZE": "10", "IMAGE_TRANSFORMATION_LIMIT_MAX_SIZE": "2000",
			"IMGPROXY_MAX_SRC_RESOLUTION": "16.8", "IMGPROXY_MAX_SRC_FILE_SIZE": "1000", "IMGPROXY_CONCURRENCY": "3",
		}, want: func(c *Config) {
			c.ImageTransformation, c.ImageLimitMinSize, c.ImageLimitMaxSize = false, 10, 2000
			c.ImageMaxSourcePixels, c.ImageMaxSourceBytes, c.ImageRenderWorkers = 16_800_000, 1000, 3
		}},
		{name: "image size limits crossed", env: map[string]string{"IMAGE_TRANSFORMATION_LIMIT_MIN_SIZE": "300", "IMAGE_TRANSFORMATION_LIMIT_MAX_SIZE": "200"}, wantErr: "want 1 <= min <= max"},
		{name: "image resolution not a number", env: map[string]string{"IMGPROXY_MAX_SRC_RESOLUTION": "lots"}, wantErr: "IMGPROXY_MAX_SRC_RESOLUTION"},
		{name: "image workers zero", env: map[string]string{"IMGPROXY_WORKERS": "0"}, wantErr: "IMGPROXY_WORKERS"},
		{name: "image memory zero", env: map[string]string{"IMAGE_PROCESSING_MEMORY_LIMIT": "0"}, wantErr: "IMAGE_PROCESSING_MEMORY_LIMIT: 0"},
		{name: "image memory with unit", env: map[string]string{"IMAGE_PROCESSING_MEMORY_LIMIT": "256MB"}, wantErr: "IMAGE_PROCESSING_MEMORY_LIMIT"},
		{name: "image queue negative", env: map[string]string{"IMAGE_PROCESSING_QUEUE_TIMEOUT": "-1s"}, wantErr: "IMAGE_PROCESSING_QUEUE_TIMEOUT: -1s"},
		{name: "port not a number", env: map[string]string{"SERVER_PORT": "five"}, wantErr: `SERVER_PORT: "five" is not an integer`},
		{name: "port out of range", env: map[string]string{"SERVER_PORT": "-1"}, wantErr: "SERVER_PORT: -1 is not a port"},
		{name: "bad database url", env: map[string]string{"DATABASE_URL": "postgres://a@h:p/db"}, wantErr: "DATABASE_URL"},
		{name: "tus expiry too short", env: map[string]string{"TUS_URL_EXPIRY_MS": "10"}, wantErr: "TUS_URL_EXPIRY_MS"},
		{name: "tus lock connections zero", env: map[string]string{"TUS_LOCK_CONNECTIONS": "0"}, wantErr: "TUS_LOCK_CONNECTIONS: 0"},
		{name: "unknown backend", env: map[string]string{"STORAGE_BACKEND": "gcs"}, wantErr: `STORAGE_BACKEND: "gcs"`},
		{name: "s3 without bucket", env: map[string]string{"STORAGE_BACKEND": "s3"}, wantErr: "STORAGE_S3_BUCKET: required"},
		{name: "s3 bad endpoint", env: map[string]string{"STORAGE_BACKEND": "s3", "STORAGE_S3_BUCKET": "b", "STORAGE_S3_ENDPOINT": "minio:9000"}, wantErr: "STORAGE_S3_ENDPOINT"},
		{name: "half the credentials", env: map[string]string{"STORAGE_BACKEND": "s3", "STORAGE_S3_BUCKET": "b", "AWS_ACCESS_KEY_ID": "id"}, wantErr: "set both or neither"},
		{name: "size limit zero", env: map[string]string{"FILE_SIZE_LIMIT": "0"}, wantErr: "FILE_SIZE_LIMIT"},
		{name: "size limit with unit", env: map[string]string{"FILE_SIZE_LIMIT": "50MB"}, wantErr: `FILE_SIZE_LIMIT: "50MB" is not an integer`},
		{name: "short secret", env: map[string]string{"AUTH_JWT_SECRET": "short"}, wantErr: "AUTH_JWT_SECRET: must be at least 32"},
		{name: "unknown log level", env: map[string]string{"LOG_LEVEL": "chatty"}, wantErr: "LOG_LEVEL"},
		{name: "production refuses the dev jwt secret", env: with(prodKeys, "AUTH_JWT_SECRET", devkeys.JWTSecret), wantErr: "AUTH_JWT_SECRET: " + devkeys.ErrDevSecret.Error()},
		{name: "production refuses the dev anon key", env: with(prodKeys, "ANON_KEY", devkeys.AnonKey), wantErr: "ANON_KEY: " + devkeys.ErrDevSecret.Error()},
		{name: "production refuses the dev service key", env: with(prodKeys, "SERVICE_KEY", devkeys.ServiceRoleKey), wantErr: "SERVICE_KEY: " + devkeys.ErrDevSecret.Error()},
		{name: "production refuses the defaults", env: map[string]string{"KEJANEST_ENV": "production"}, wantErr: "production mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Load(envconf.FromMap(tt.env))
			err = errors.Join(err, c.Validate())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			want := defaults
			tt.want(&want)
			if !reflect.DeepEqual(c, want) {
				t.Errorf("config = %+v\nwant     %+v", c, want)
			}
		})
	}
}

// TestImageDefaults: the budget a Service makes when none is configured is
// the one the configuration documents.
func TestImageDefaults(t *testing.T) {
	t.Parallel()
	if DefaultImageMemoryLimit != objects.DefaultImageMemoryLimit || DefaultImageQueueTimeout != objects.DefaultImageQueueTimeout {
		t.Errorf("config defaults %d, %s; objects defaults %d, %s", DefaultImageMemoryLimit, DefaultImageQueueTimeout,
			objects.DefaultImageMemoryLimit, objects.DefaultImageQueueTimeout)
	}
}

func TestDerived(t *testing.T) {
	t.Parallel()
	tests := []struct{ level, wantSlog string }{{"trace", "debug"}, {"fatal", "error"}, {"warn", "warn"}}
	for _, tt := range tests {
		t.Run(tt.level, func(t *testing.T) {
			t.Parallel()
			c := Config{Host: "::1", Port: 5000, LogLevel: tt.level}
			if c.SlogLevel() != tt.wantSlog || c.Addr() != "[::1]:5000" {
				t.Errorf("SlogLevel, Addr = %q, %q", c.SlogLevel(), c.Addr())
			}
		})
	}
}
