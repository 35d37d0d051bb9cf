module github.com/resident-go/resident

go 1.26
