// Command storage serves the Supabase Storage-compatible API
// (/storage/v1/* behind the gateway). It is configured from the environment
// (see internal/config) and stops gracefully on SIGINT or SIGTERM.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/fiberserve"
	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/platform/logging"
	"github.com/kejanest/kejanest/platform/pgpool"
	"github.com/kejanest/kejanest/storage/internal/backend"
	"github.com/kejanest/kejanest/storage/internal/config"
	"github.com/kejanest/kejanest/storage/internal/db"
	"github.com/kejanest/kejanest/storage/internal/httpapi"
	"github.com/kejanest/kejanest/storage/internal/objects"
	"github.com/kejanest/kejanest/storage/internal/render"
	"github.com/kejanest/kejanest/storage/internal/resumable"
)

const service = "storage"

// transferTimeout bounds one upload or download.
const transferTimeout = 15 * time.Minute

// openBackend builds the configured byte store. A MinIO-style endpoint
// (STORAGE_S3_ENDPOINT set) uses path-style addressing, and its bucket is
// created when missing.
func openBackend(ctx context.Context, cfg config.Config) (backend.Backend, error) {
	if cfg.Backend == config.BackendFile {
		return backend.NewFile(cfg.FilePath)
	}
	s3, err := backend.NewS3(backend.S3Options{
		Endpoint: cfg.S3Endpoint, Bucket: cfg.S3Bucket, Region: cfg.S3Region,
		AccessKeyID: cfg.AWSAccessKeyID, SecretAccessKey: cfg.AWSSecretAccessKey,
		ForcePathStyle: cfg.S3ForcePathStyle,
	})
	if err != nil {
		return nil, err
	}
	if cfg.S3Endpoint != "" {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := s3.EnsureBucket(cctx, cfg.S3Region); err != nil {
			return nil, err
		}
	}
	return s3, nil
}

func main() { os.Exit(run()) }

func run() int {
	cfg, err := config.Load(envconf.New())
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: invalid configuration:\n%v\n", service, err)
		return 1
	}
	log := logging.New(os.Stderr, service, cfg.SlogLevel())

	ctx, stop := lifecycle.SignalContext(context.Background())
	defer stop()

	// The pool connects lazily: the service starts while PostgreSQL is
	// still coming up.
	pool, err := pgpool.New(context.Background(), cfg.DatabaseURL, pgpool.Options{AppName: "kejanest-" + service})
	if err != nil {
		log.Error("open database pool", "error", err.Error())
		return 1
	}
	defer pool.Close()
	// Upload locks hold connections of their own (db.Locker).
	lockPool, err := pgpool.New(context.Background(), cfg.DatabaseURL,
		pgpool.Options{AppName: "kejanest-" + service + "-locks", MaxConns: int32(cfg.TusLockConnections)})
	if err != nil {
		log.Error("open lock pool", "error", err.Error())
		return 1
	}
	defer lockPool.Close()

	store, err := openBackend(ctx, cfg)
	if err != nil {
		log.Error("open storage backend", "error", err.Error())
		return 1
	}
	verifier, err := jwtverify.New(jwtverify.Options{Secret: cfg.JWTSecret, JWKS: []byte(cfg.JWKS)})
	if err != nil {
		log.Error("jwt verifier", "error", err.Error())
		return 1
	}
	signer, err := objects.NewSigner(cfg.JWTSecret, nil)
	if err != nil {
		log.Error("url signer", "error", err.Error())
		return 1
	}
	svc := &objects.Service{
		DB: db.New(pool), Backend: store, Signer: signer,
		FileSizeLimit: int64(cfg.FileSizeLimit), Log: log,
		Images: objects.NewImageBudget(int64(cfg.ImageMemoryLimit), cfg.ImageQueueTimeout),
	}
	var renderer *render.Renderer
	if cfg.ImageTransformation {
		// Transformations take their memory from the uploads' budget.
		renderer = render.New(render.Config{
			Limits:         render.Limits{MinSize: cfg.ImageLimitMinSize, MaxSize: cfg.ImageLimitMaxSize},
			MaxSourceBytes: int64(cfg.ImageMaxSourceBytes), MaxSourcePixels: cfg.ImageMaxSourcePixels,
			Workers: cfg.ImageRenderWorkers, QueueTimeout: cfg.ImageQueueTimeout,
		}, svc.Images, objects.DecodeCost)
	}
	tus := &resumable.Manager{Service: svc, Backend: store, Expiry: cfg.TusURLExpiry, Log: log, Locker: db.NewLocker(lockPool)}
	// Abandoned uploads are swept a few times per expiry period.
	go tus.SweepEvery(ctx, max(cfg.TusURLExpiry/4, time.Minute))
	app := httpapi.New(httpapi.Deps{
		Log: log, FileSizeLimit: cfg.FileSizeLimit, Service: svc, Verifier: verifier, Resumable: tus,
		Renderer: renderer,
		// Large objects take longer than an API call: the body and the
		// handler get transferTimeout.
		Server: fiberserve.Config{ReadTimeout: transferTimeout, WriteTimeout: transferTimeout, RequestTimeout: transferTimeout},
	})
	if err := fiberserve.Serve(ctx, app, cfg.Addr(), log); err != nil {
		log.Error("serve", "error", err.Error())
		return 1
	}
	return 0
}
