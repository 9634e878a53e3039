module github.com/kejanest/kejanest/devstack

go 1.26.8

replace github.com/kejanest/kejanest/platform => ../platform

require (
	github.com/jackc/pgx/v5 v5.12.0
	github.com/kejanest/kejanest/platform v0.0.0-00010101000000-000000000000
	go.yaml.in/yaml/v3 v3.0.5
)

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	golang.org/x/text v0.41.0 // indirect
)
