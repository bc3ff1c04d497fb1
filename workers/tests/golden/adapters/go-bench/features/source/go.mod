module latlab.example/gofeatures

go 1.21
