filedesc://fixture.arc 0.0.0.0 19961104142103 text/plain 68
1 0 Fixture
URL IP-address Archive-date Content-type Archive-length

http://arc.example.com/ 127.0.0.1 19961104142103 text/html 117
HTTP/1.0 200 OK
Content-Type: text/html

<html><head><title>ARC</title></head><body><p>An ARC page.</p></body></html>
http://arc.example.com/b 127.0.0.1 19961104142103 text/html 122
HTTP/1.0 200 OK
Content-Type: text/html

<html><head><title>ARC</title></head><body><p>Another ARC page.</p></body></html>
