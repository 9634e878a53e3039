package backend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// s3PartSize is the multipart part size for uploads of unknown length: the
// one part buffered in memory at a time, and 10,000 parts make a 50 GiB cap.
const s3PartSize = 5 << 20

// S3Options configure an S3 backend (STORAGE_S3_* and AWS_*).
type S3Options struct {
	// Endpoint is the service URL (http(s)://host[:port]); empty is AWS.
	Endpoint string
	// Bucket holds every object.
	Bucket string
	// Region is the bucket's region; empty lets the client discover it.
	Region string
	// AccessKeyID and SecretAccessKey are static credentials; empty uses the
	// environment/instance chain.
	AccessKeyID, SecretAccessKey string
	// ForcePathStyle addresses the bucket in the path (MinIO); otherwise
	// the client picks.
	ForcePathStyle bool
}

// S3 stores objects in one S3 bucket through minio-go. S3 makes an object
// visible only when its (multipart) upload completes.
type S3 struct {
	client *minio.Client
	core   *minio.Core
	bucket string
}

// NewS3 builds the client; it does not contact the service.
func NewS3(o S3Options) (*S3, error) {
	host, secure := "s3.amazonaws.com", true
	if o.Endpoint != "" {
		u, err := url.Parse(o.Endpoint)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("s3 endpoint %q: not a URL", o.Endpoint)
		}
		host, secure = u.Host, u.Scheme == "https"
	}
	var creds *credentials.Credentials
	if o.AccessKeyID != "" {
		creds = credentials.NewStaticV4(o.AccessKeyID, o.SecretAccessKey, "")
	} else {
		creds = credentials.NewChainCredentials([]credentials.Provider{&credentials.EnvAWS{}, &credentials.IAM{}})
	}
	lookup := minio.BucketLookupAuto
	if o.ForcePathStyle {
		lookup = minio.BucketLookupPath
	}
	c, err := minio.New(host, &minio.Options{Creds: creds, Secure: secure, Region: o.Region, BucketLookup: lookup})
	if err != nil {
		return nil, fmt.Errorf("s3 client: %w", err)
	}
	return &S3{client: c, core: &minio.Core{Client: c}, bucket: o.Bucket}, nil
}

// EnsureBucket creates the bucket if it does not exist (for tests and local
// MinIO; production buckets are provisioned outside).
func (s *S3) EnsureBucket(ctx context.Context, region string) error {
	ok, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return fmt.Errorf("s3 bucket exists: %w", err)
	}
	if ok {
		return nil
	}
	if err := s.client.MakeBucket(ctx, s.bucket, minio.MakeBucketOptions{Region: region}); err != nil {
		return fmt.Errorf("s3 make bucket: %w", err)
	}
	return nil
}

// Put implements Backend.
func (s *S3) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	info, err := s.client.PutObject(ctx, s.bucket, key, r, -1, minio.PutObjectOptions{
		ContentType: contentType,
		PartSize:    s3PartSize,
	})
	if err != nil {
		return 0, fmt.Errorf("s3 put: %w", err)
	}
	return info.Size, nil
}

// Get implements Backend.
func (s *S3) Get(ctx context.Context, key string, rng *Range) (io.ReadCloser, error) {
	opts := minio.GetObjectOptions{}
	if rng != nil && (rng.Start > 0 || rng.Length >= 0) {
		var err error
		if rng.Length < 0 {
			err = opts.SetRange(rng.Start, 0) // bytes=N-
		} else {
			err = opts.SetRange(rng.Start, rng.Start+rng.Length-1) // bytes=N-M
		}
		if err != nil {
			return nil, fmt.Errorf("s3 get: %w", err)
		}
	}
	// Core.GetObject sends the request now (with the range) and reports a
	// missing key here, not on the first Read.
	body, _, _, err := s.core.GetObject(ctx, s.bucket, key, opts)
	if err != nil {
		return nil, mapS3(err)
	}
	return body, nil
}

// Stat implements Backend.
func (s *S3) Stat(ctx context.Context, key string) (Info, error) {
	st, err := s.client.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return Info{}, mapS3(err)
	}
	return Info{Size: st.Size, LastModified: st.LastModified}, nil
}

// Copy implements Backend.
func (s *S3) Copy(ctx context.Context, src, dst string) error {
	_, err := s.client.CopyObject(ctx,
		minio.CopyDestOptions{Bucket: s.bucket, Object: dst},
		minio.CopySrcOptions{Bucket: s.bucket, Object: src})
	if err != nil {
		return mapS3(err)
	}
	return nil
}

// Delete implements Backend.
func (s *S3) Delete(ctx context.Context, keys ...string) error {
	if len(keys) == 0 {
		return nil
	}
	ch := make(chan minio.ObjectInfo, len(keys))
	for _, k := range keys {
		ch <- minio.ObjectInfo{Key: k}
	}
	close(ch)
	var errs []error
	for e := range s.client.RemoveObjects(ctx, s.bucket, ch, minio.RemoveObjectsOptions{}) {
		if e.Err != nil && minio.ToErrorResponse(e.Err).Code != "NoSuchKey" {
			errs = append(errs, fmt.Errorf("s3 delete %s: %w", e.ObjectName, e.Err))
		}
	}
	return errors.Join(errs...)
}

// List implements Backend.
func (s *S3) List(ctx context.Context, prefix string) ([]Entry, error) {
	var out []Entry
	for o := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			return nil, fmt.Errorf("s3 list: %w", o.Err)
		}
		out = append(out, Entry{Key: o.Key, Info: Info{Size: o.Size, LastModified: o.LastModified}})
	}
	return out, nil
}

func mapS3(err error) error {
	switch minio.ToErrorResponse(err).Code {
	case "NoSuchKey", "NotFound":
		return ErrNotFound
	}
	return fmt.Errorf("s3: %w", err)
}
