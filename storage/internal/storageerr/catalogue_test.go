package storageerr

import "testing"

// TestCatalogue pins every constructor to upstream's ERRORS entry: the
// body's statusCode, code, error and message, and HTTP 400 on the wire.
func TestCatalogue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"NoSuchBucket", NoSuchBucket(), `{"statusCode":"404","code":"NoSuchBucket","error":"Bucket not found","message":"Bucket not found"}`},
		{"NoSuchKey", NoSuchKey(), `{"statusCode":"404","code":"NoSuchKey","error":"not_found","message":"Object not found"}`},
		{"InvalidKey", InvalidKey("a/../b"), `{"statusCode":"400","code":"InvalidKey","error":"InvalidKey","message":"Invalid key: a/../b"}`},
		{"InvalidBucketName", InvalidBucketName(), `{"statusCode":"400","code":"InvalidBucketName","error":"Invalid Input","message":"Bucket name invalid"}`},
		{"KeyAlreadyExists", KeyAlreadyExists(), `{"statusCode":"409","code":"KeyAlreadyExists","error":"Duplicate","message":"The resource already exists"}`},
		{"BucketAlreadyExists", BucketAlreadyExists(), `{"statusCode":"409","code":"BucketAlreadyExists","error":"Duplicate","message":"The resource already exists"}`},
		{"BucketNotEmpty", BucketNotEmpty(), `{"statusCode":"409","code":"ResourceNotEmpty","error":"ResourceNotEmpty","message":"The bucket you tried to delete is not empty"}`},
		{"RLSDenied", RLSDenied(), `{"statusCode":"403","code":"AccessDenied","error":"Unauthorized","message":"new row violates row-level security policy"}`},
		{"AccessDenied default", AccessDenied(""), `{"statusCode":"403","code":"AccessDenied","error":"Unauthorized","message":"Access denied"}`},
		{"InvalidMimeType", InvalidMimeType("text/html"), `{"statusCode":"415","code":"InvalidMimeType","error":"invalid_mime_type","message":"mime type text/html is not supported"}`},
		{"InvalidJWT", InvalidJWT("jwt expired"), `{"statusCode":"400","code":"InvalidJWT","error":"InvalidJWT","message":"jwt expired"}`},
		{"InvalidJWT default", InvalidJWT(""), `{"statusCode":"400","code":"InvalidJWT","error":"InvalidJWT","message":"Invalid JWT"}`},
		{"MissingParameter", MissingParameter("prefixes"), `{"statusCode":"400","code":"MissingParameter","error":"MissingParameter","message":"Missing Required Parameter prefixes"}`},
		{"InvalidParameter", InvalidParameter("paths", ""), `{"statusCode":"400","code":"InvalidParameter","error":"InvalidParameter","message":"Invalid Parameter paths"}`},
		{"InvalidRange", InvalidRange(), `{"statusCode":"400","code":"InvalidRange","error":"invalid_range","message":"invalid range provided"}`},
		{"NoContentProvided", NoContentProvided(), `{"statusCode":"400","code":"InvalidRequest","error":"InvalidRequest","message":"No content provided"}`},
		{"InvalidFileSizeLimit", InvalidFileSizeLimit(), `{"statusCode":"400","code":"InvalidRequest","error":"InvalidRequest","message":"Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B"}`},
		{"InvalidSignature", InvalidSignature(""), `{"statusCode":"400","code":"InvalidSignature","error":"InvalidSignature","message":"Invalid signature"}`},
		{"EntityTooLarge", EntityTooLarge(), `{"statusCode":"413","code":"EntityTooLarge","error":"Payload too large","message":"The object exceeded the maximum allowed size"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, body, expected := Render(tt.err, "r")
			if status != 400 || string(body) != tt.want || !expected {
				t.Errorf("Render = %d %s %v\nwant     400 %s true", status, body, expected, tt.want)
			}
		})
	}
}
