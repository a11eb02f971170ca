data {
   real y;
}
transformed data {
   real z;
   
   y = 10.0;
}
model {
}
