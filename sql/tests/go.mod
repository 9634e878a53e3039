module github.com/kejanest/kejanest/sql/tests

go 1.26.8
